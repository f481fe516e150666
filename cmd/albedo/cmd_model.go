package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/albedo-agent/albedo/adapters/configfile"
	"github.com/albedo-agent/albedo/frontends/home"
)

// runModel switches the active provider and its default model, used by new
// sessions. Existing sessions keep theirs; switch one with /model.
func runModel(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "model")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := e.albedoHome()
	if err != nil {
		return err
	}
	cfg := configfile.New(filepath.Join(dir, home.ConfigFile))
	var provider, model string
	switch fs.NArg() {
	case 1:
		c, err := cfg.Load(ctx)
		if err != nil {
			return err
		}
		if c.Active == "" {
			return usageError{"no provider is active: name one, or add one with 'albedo login'"}
		}
		provider, model = c.Active, fs.Arg(0)
	case 2:
		provider, model = fs.Arg(0), fs.Arg(1)
	default:
		return usageError{"model takes [PROVIDER] MODEL"}
	}
	if err := cfg.SetActiveModel(ctx, provider, model); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "new sessions use %s on %s\n", model, provider)
	return nil
}
