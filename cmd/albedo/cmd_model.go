package main

import (
	"context"
	"fmt"
)

// runModel switches the active provider and its default model, used by new
// sessions. Existing sessions keep theirs; switch one with /model.
func runModel(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "model")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := e.configFile()
	if err != nil {
		return err
	}
	var provider, model string
	switch fs.NArg() {
	case 0:
		return listModels(ctx, e)
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
		return usageError{"model takes [[PROVIDER] MODEL]"}
	}
	if err := cfg.SetActiveModel(ctx, provider, model); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "new sessions use %s on %s; existing sessions keep theirs (/model in the console switches one)\n", model, provider)
	return nil
}

// listModels prints what new sessions use and the configured providers.
func listModels(ctx context.Context, e *env) error {
	list, err := e.listProviders(ctx)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no model provider is configured; add one with\n    albedo login")
		return nil
	}
	active := "no provider is active: albedo model PROVIDER MODEL chooses one"
	for _, p := range list {
		if p.Active {
			active = fmt.Sprintf("new sessions use %s on %s (%s)", p.Model, p.Name, p.Protocol)
		}
	}
	fmt.Fprintln(e.stdout, active)
	fmt.Fprintln(e.stdout, "\nconfigured providers (albedo model PROVIDER MODEL switches):")
	for _, p := range list {
		mark := " "
		if p.Active {
			mark = "*"
		}
		fmt.Fprintf(e.stdout, "%s %-16s %-28s %-16s %s\n", mark, p.Name, p.Model, p.Protocol, p.BaseURL)
	}
	return nil
}
