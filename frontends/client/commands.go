package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Command runs a slash command (such as "/model") on a session with args
// (any JSON-encodable value, nil for none) and returns its raw result.
func (c *Client) Command(ctx context.Context, id, name string, args any) (json.RawMessage, error) {
	body := wire.Command{Name: name}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("run %s on session %s: encode arguments: %w", name, id, err)
		}
		body.Args = raw
	}
	out, err := call[wire.CommandResult](ctx, c, http.MethodPost, sessionPath(id, "commands"), body, "run %s on session %s", name, id)
	return out.Result, err
}

// SwitchModel rebinds an idle session to a provider (its own when empty)
// and model with /model; the daemon makes that choice the default for new
// sessions too.
func (c *Client) SwitchModel(ctx context.Context, id, provider, model string) (wire.ModelChoice, error) {
	args := map[string]string{"model": model}
	if provider != "" {
		args["provider"] = provider
	}
	raw, err := c.Command(ctx, id, "/model", args)
	if err != nil {
		return wire.ModelChoice{}, err
	}
	var out wire.ModelChoice
	if err := json.Unmarshal(raw, &out); err != nil {
		return wire.ModelChoice{}, fmt.Errorf("decode result of /model: %w", err)
	}
	return out, nil
}
