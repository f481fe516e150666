package embedded

import (
	"context"
	"encoding/json"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// Command runs a slash command (such as "/model") on a session with args
// (any JSON-encodable value, nil for none) and returns its result as JSON.
func (a *Albedo) Command(ctx context.Context, id, name string, args any) (json.RawMessage, error) {
	out, err := a.command(ctx, id, name, args)
	return out, failed(err, "run %s on session %s", name, id)
}

func (a *Albedo) command(ctx context.Context, id, name string, args any) (json.RawMessage, error) {
	req := wire.Command{Name: name}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, albedo.Errorf(albedo.EInvalid, "encode arguments: %v", err)
		}
		req.Args = b
	}
	out, err := a.app.Command(ctx, id, req)
	return out.Result, err
}

// SwitchModel rebinds an idle session to a provider (its own when empty)
// and model, as /model does; that choice also becomes the default for new
// sessions. The session's history is projected into the new provider's
// protocol on its next turn.
func (a *Albedo) SwitchModel(ctx context.Context, id, provider, model string) (wire.ModelChoice, error) {
	c, err := a.app.SwitchModel(ctx, id, provider, model)
	return c, failed(err, "run /model on session %s", id)
}
