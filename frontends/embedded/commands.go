package embedded

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/albedo-agent/albedo/frontends/wire"

	"github.com/albedo-agent/albedo/albedo"
)

// Command runs a slash command (such as "/model") on a session with args
// (any JSON-encodable value, nil for none) and returns its result as JSON.
func (a *Albedo) Command(ctx context.Context, id, name string, args any) (json.RawMessage, error) {
	out, err := a.command(ctx, id, name, args)
	if err != nil {
		return nil, fmt.Errorf("run %s on session %s: %w", name, id, err)
	}
	return out, nil
}

func (a *Albedo) command(ctx context.Context, id, name string, args any) (json.RawMessage, error) {
	var raw json.RawMessage
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, albedo.Errorf(albedo.EInvalid, "encode arguments: %v", err)
		}
		raw = b
	}
	if _, err := a.svc.Session(ctx, id); err != nil {
		return nil, err
	}
	result, err := a.svc.RunCommand(ctx, id, name, raw)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return out, nil
}

// SwitchModel rebinds an idle session to a provider (its own when empty)
// and model, as /model does; that choice also becomes the default for new
// sessions. The session's history is projected into the new provider's
// protocol on its next turn.
func (a *Albedo) SwitchModel(ctx context.Context, id, provider, model string) (ModelChoice, error) {
	if _, err := a.svc.Session(ctx, id); err != nil {
		return ModelChoice{}, fmt.Errorf("run /model on session %s: %w", id, err)
	}
	c, err := a.svc.SwitchModel(ctx, id, provider, model, nil)
	if err != nil {
		return ModelChoice{}, fmt.Errorf("run /model on session %s: %w", id, err)
	}
	return wire.ModelChoice(c), nil
}
