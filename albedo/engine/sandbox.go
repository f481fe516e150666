package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// SandboxStatus says what a kernel started now would run under, and false
// when albedo has no sandbox.
func (s *Service) SandboxStatus(ctx context.Context) (albedo.SandboxStatus, bool) {
	if s.sandbox == nil {
		return albedo.SandboxStatus{}, false
	}
	return s.sandbox.Status(ctx), true
}

// sessionSandbox says what the session's kernel runs under, or the next
// one would, and false when albedo has no sandbox.
func (s *Service) sessionSandbox(ctx context.Context, id string) (albedo.SandboxStatus, bool) {
	if s.sandbox == nil {
		return albedo.SandboxStatus{}, false
	}
	if st, ok := s.sandbox.Session(ctx, id); ok {
		return st, true
	}
	return s.sandbox.Status(ctx), true
}

// sandboxGlance is the sidebar item of a session's sandbox, in the types a
// JSON client decodes.
func sandboxGlance(st albedo.SandboxStatus) albedo.Glance {
	kernel := "not running"
	if st.Running {
		kernel = "running"
	}
	g := albedo.Glance{
		"extension": "sandbox", "mode": string(st.Policy.Mode), "network": st.Policy.Network,
		"required": st.Policy.Required, "kernel": kernel,
		"writable": anyList(st.Writable), "hidden": anyList(st.Hidden),
		"enforced": anyList(st.Enforced), "not_enforced": anyList(st.NotEnforced),
	}
	if len(st.Problems) > 0 {
		g["problems"] = anyList(st.Problems)
	}
	return g
}

// anyList is a list of strings as JSON decodes it: never nil.
func anyList(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// instructionsFor returns the instructions of a session's next request:
// albedo's, and the sandbox's line when there is a sandbox.
func (s *Service) instructionsFor(ctx context.Context, id string) string {
	st, ok := s.sessionSandbox(ctx, id)
	if !ok {
		return s.instructions
	}
	return s.instructions + "\n" + albedo.SandboxInstruction(st)
}
