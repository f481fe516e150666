package app

import (
	"context"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Sandbox says what a kernel started now would run under, as /health
// shows it; nil when albedo has no sandbox.
func (a *App) Sandbox(ctx context.Context) *wire.Sandbox {
	st, ok := a.svc.SandboxStatus(ctx)
	if !ok {
		return nil
	}
	return &wire.Sandbox{
		Mode: string(st.Policy.Mode), Network: st.Policy.Network, Required: st.Policy.Required,
		Enforced: nonNil(st.Enforced), NotEnforced: nonNil(st.NotEnforced), Problems: st.Problems,
	}
}

// nonNil is list, or an empty list for nil, so JSON shows [].
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
