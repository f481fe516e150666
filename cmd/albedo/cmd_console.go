package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/adapters/openai"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/console"
	"golang.org/x/term"
)

func runConsole(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "console")
	fresh := fs.Bool("new", false, "start a new session in the current folder instead of picking one")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"console takes no arguments"}
	}
	opts := console.Options{}
	if *fresh {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the current folder: %w", err)
		}
		opts.NewSession = wd
		if holdsRunningAlbedo(wd) {
			opts.NewSession, opts.PickerNote = "", ownSourceNote
		}
	}
	return openConsole(ctx, e, opts)
}

// ownSourceNote is what the picker says when albedo was run from the
// folder that holds it, such as its own source checkout.
const ownSourceNote = "this folder holds the albedo you are running (its own source?), so no session was started here: " +
	"run albedo from your project's folder to work on it, or press n to start a session here anyway"

// holdsRunningAlbedo reports whether folder dir holds the running albedo
// binary, as albedo's checkout does when scripts/albedo.sh runs from it:
// a session there would hand albedo's own source (and binaries) to the
// model, so plain albedo opens the picker instead of binding one to it.
func holdsRunningAlbedo(dir string) bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return false
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return false
	}
	rel, err := filepath.Rel(dir, exe)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// openConsole runs the console on the terminal and says, once it closes,
// how to come back to the session left open.
func openConsole(ctx context.Context, e *env, opts console.Options) error {
	if !e.interactive() {
		return fmt.Errorf("the console needs a terminal: use 'albedo run' to script a session")
	}
	if opts.Workspace == "" {
		opts.Workspace, _ = os.Getwd()
	}
	opts.Dial = e.dial
	opts.SaveProvider = e.saveFormProvider
	opts.NoMouse = mouseOff(os.Getenv("ALBEDO_MOUSE"))
	opts.Providers = e.listProviders
	opts.Models = e.listModels
	res, err := console.Run(ctx, opts)
	if err != nil {
		return err
	}
	if res.Session != "" {
		fmt.Fprintf(e.stderr, "detached from session %s; it goes on in the daemon (albedo attach %s)\n", res.Session, res.Session)
	}
	return nil
}

// interactive reports whether the CLI talks to a person: stdin and stdout
// are both terminals.
func (e *env) interactive() bool { return isTerminal(e.stdin) && isTerminal(e.stdout) }

// isTerminal reports whether v is a file open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// saveFormProvider saves what the console's login form holds, as albedo
// login does, and makes it active. An empty key keeps the saved one.
func (e *env) saveFormProvider(ctx context.Context, l console.Login) error {
	if l.Model == "" {
		return errors.New("the model is required")
	}
	cfg, err := e.configFile()
	if err != nil {
		return err
	}
	p := albedo.ProviderConfig{Name: l.Name, BaseURL: l.BaseURL, Protocol: albedo.Protocol(l.Protocol), Model: l.Model, APIKey: l.APIKey}
	if saved, ok := savedProvider(ctx, cfg, l.Name); ok && p.APIKey == "" {
		p.APIKey = saved.APIKey
	}
	return cfg.SaveProvider(ctx, p, true)
}

// loadConfig reads config.json.
func (e *env) loadConfig(ctx context.Context) (albedo.Config, error) {
	cfg, err := e.configFile()
	if err != nil {
		return albedo.Config{}, err
	}
	return cfg.Load(ctx)
}

// listProviders reads the configured providers from config.json, sorted
// by name, without their keys.
func (e *env) listProviders(ctx context.Context) ([]console.Provider, error) {
	c, err := e.loadConfig(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]console.Provider, 0, len(c.Providers))
	for name, p := range c.Providers {
		out = append(out, console.Provider{Name: name, BaseURL: p.BaseURL, Protocol: string(p.Protocol), Model: p.Model, Active: name == c.Active})
	}
	slices.SortFunc(out, func(a, b console.Provider) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// modelsTimeout bounds the wait for a provider's model list.
const modelsTimeout = 20 * time.Second

// listModels asks a configured provider for the models it serves (GET
// {baseUrl}/models), with its saved key, as the daemon would reach it.
func (e *env) listModels(ctx context.Context, provider string) ([]string, error) {
	c, err := e.loadConfig(ctx)
	if err != nil {
		return nil, err
	}
	p, ok := c.Providers[provider]
	if !ok {
		return nil, fmt.Errorf("no provider %q in config.json", provider)
	}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	ep := albedo.Endpoint{Provider: provider, BaseURL: p.BaseURL, APIKey: p.APIKey, Model: p.Model, Protocol: p.Protocol}
	return openai.New(openai.Options{}).Models(ctx, ep)
}

// mouseOff reads ALBEDO_MOUSE: off, 0, false or no leave the mouse to the
// terminal.
func mouseOff(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}
