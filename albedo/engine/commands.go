package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// command is one slash command a session accepts.
type command struct {
	summary string
	run     func(ctx context.Context, id string, args json.RawMessage) (albedo.CommandResult, error)
}

// commandTable lists the slash commands. A new command is one entry.
func (s *Service) commandTable() map[string]command {
	return map[string]command{
		"/model":   {summary: "switch the session's provider, model and effort", run: s.modelCommand},
		"/compact": {summary: "summarise the earlier conversation so that requests start from the summary", run: s.compactCommand},
		"/skill":   {summary: "send a message with a skill's instructions", run: s.skillCommand},
	}
}

// Commands returns the names of the slash commands, sorted.
func (s *Service) Commands() []string {
	return slices.Sorted(maps.Keys(s.commands))
}

// RunCommand runs a slash command on a session.
func (s *Service) RunCommand(ctx context.Context, id, name string, args json.RawMessage) (albedo.CommandResult, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return albedo.CommandResult{}, err
	}
	cmd, ok := s.commands[name]
	if !ok {
		return albedo.CommandResult{}, albedo.Errorf(albedo.EInvalid, "unknown command %q: known commands are %s", name, strings.Join(s.Commands(), ", "))
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	return cmd.run(ctx, id, args)
}

// modelArgs are the arguments of /model.
type modelArgs struct {
	Provider string  `json:"provider"`
	Model    string  `json:"model"`
	Effort   *string `json:"effort"`
}

// SwitchModel rebinds an idle session to a provider (its own when empty)
// and model, and makes that choice the default for new sessions. Its
// history is projected into the new provider's protocol on the next turn.
func (s *Service) SwitchModel(ctx context.Context, id, provider, model string, effort *string) (albedo.ModelChoice, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return albedo.ModelChoice{}, albedo.Errorf(albedo.EInvalid, "/model needs a model name")
	}
	if effort != nil && !slices.Contains([]string{"", "low", "medium", "high"}, *effort) {
		return albedo.ModelChoice{}, albedo.Errorf(albedo.EInvalid, "effort %q is not one of low, medium, high", *effort)
	}
	return withRow(ctx, s, id, func(st *sessionState) (albedo.ModelChoice, error) {
		sess, err := s.store.Session(ctx, id)
		if err != nil {
			return albedo.ModelChoice{}, err
		}
		if st.running() != nil {
			return albedo.ModelChoice{}, albedo.Errorf(albedo.EBusy, "session %s is running a turn: interrupt it or wait before switching models", id)
		}
		provider = cmp.Or(provider, sess.Provider)
		cfg, err := s.config.Load(ctx)
		if err != nil {
			return albedo.ModelChoice{}, err
		}
		pc, ok := cfg.Providers[provider]
		if !ok {
			return albedo.ModelChoice{}, albedo.Errorf(albedo.EConflict, "provider %q is not configured: %s", provider, LoginHint)
		}
		// The default is written first: if that fails, nothing changed.
		if err := s.config.SetActiveModel(ctx, provider, model); err != nil {
			return albedo.ModelChoice{}, err
		}
		sess, err = s.updateLocked(ctx, id, func(x *albedo.Session) error {
			x.Provider, x.Model, x.Protocol = provider, model, pc.Protocol
			if effort != nil {
				x.Effort = *effort
			}
			return nil
		})
		if err != nil {
			return albedo.ModelChoice{}, err
		}
		choice := albedo.ModelChoice{Provider: sess.Provider, Model: sess.Model, Protocol: sess.Protocol}
		if sess.Effort != "" {
			e := sess.Effort
			choice.Effort = &e
		}
		return choice, nil
	})
}

func (s *Service) modelCommand(ctx context.Context, id string, raw json.RawMessage) (albedo.CommandResult, error) {
	var args modelArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return albedo.CommandResult{}, albedo.Errorf(albedo.EInvalid, "/model arguments must be {\"provider\"?: string, \"model\": string, \"effort\"?: string}: %v", err)
	}
	choice, err := s.SwitchModel(ctx, id, args.Provider, args.Model, args.Effort)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	return albedo.CommandResult{Model: &choice}, nil
}
