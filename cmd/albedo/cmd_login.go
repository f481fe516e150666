package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/albedo-agent/albedo/adapters/configfile"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// runLogin adds or updates a provider in config.json. The key is read from
// a prompt that does not echo, or from standard input when that is not a
// terminal; never from the command line, where other users could see it.
func runLogin(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "login")
	name := fs.String("name", "", "the provider's name in config.json (required)")
	baseURL := fs.String("base-url", "", "the provider's base URL, e.g. https://api.openai.com/v1 (required)")
	protocol := fs.String("protocol", "responses", "responses or chat_completions")
	model := fs.String("model", "", "the model new sessions use (required)")
	activate := fs.Bool("activate", true, "make this the active provider for new sessions")
	noKey := fs.Bool("no-key", false, "the provider needs no API key")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"login takes only options; the key is read from a prompt or standard input"}
	}
	p := albedo.ProviderConfig{Name: strings.TrimSpace(*name), BaseURL: strings.TrimSpace(*baseURL), Model: strings.TrimSpace(*model), Protocol: albedo.Protocol(*protocol)}
	if err := checkLogin(p); err != nil {
		return err
	}
	if !*noKey {
		key, err := readKey(e, p.Name)
		if err != nil {
			return err
		}
		p.APIKey = key
	}
	dir, err := e.albedoHome()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create home %s: %w", dir, err)
	}
	cfg := configfile.New(filepath.Join(dir, home.ConfigFile))
	if err := cfg.SaveProvider(ctx, p, *activate); err != nil {
		return err
	}
	state := ""
	if *activate {
		state = " and made it active"
	}
	fmt.Fprintf(e.stdout, "saved provider %q (%s, %s)%s\n", p.Name, p.Protocol, p.Model, state)
	return nil
}

// checkLogin validates a provider before anything is asked or written.
func checkLogin(p albedo.ProviderConfig) error {
	switch {
	case p.Name == "":
		return usageError{"--name is required"}
	case p.Model == "":
		return usageError{"--model is required"}
	case !p.Protocol.Valid():
		return usageError{fmt.Sprintf("--protocol must be responses or chat_completions, not %q", p.Protocol)}
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Sprintf("--base-url must be an absolute http(s) URL, not %q", p.BaseURL)}
	}
	return nil
}

// readKey reads an API key without echoing it on a terminal. An empty key
// is a mistake: a provider without one is saved with --no-key.
func readKey(e *env, name string) (string, error) {
	key, err := readSecret(e, name)
	if err != nil {
		return "", err
	}
	if key == "" {
		return "", usageError{"no API key was given (use --no-key for a provider that needs none)"}
	}
	return key, nil
}

// readSecret reads one line, trimmed: from a prompt that does not echo
// when stdin is a terminal, else from stdin.
func readSecret(e *env, name string) (string, error) {
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(e.stderr, "API key for %s: ", name)
		stop := restoreOnInterrupt(e, int(f.Fd()))
		b, err := term.ReadPassword(int(f.Fd()))
		stop()
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", fmt.Errorf("read the key: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read the key from standard input: %w", err)
	}
	return strings.TrimSpace(line), nil
}

// restoreOnInterrupt makes Ctrl-C or SIGTERM during a prompt that does not
// echo give the terminal its echo back before albedo exits (status 130),
// instead of leaving the shell silent. stop ends the watch.
func restoreOnInterrupt(e *env, fd int) (stop func()) {
	state, err := term.GetState(fd)
	if err != nil {
		return func() {}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			term.Restore(fd, state)
			fmt.Fprintln(e.stderr, "\nalbedo login: interrupted; nothing was saved")
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}
