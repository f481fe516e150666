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

// Defaults `albedo login` offers when it asks for what its flags left out.
const (
	defaultLoginName     = "openai"
	defaultLoginBaseURL  = "https://api.openai.com/v1"
	defaultLoginProtocol = "responses"
	defaultLoginModel    = "gpt-5"
)

// runLogin adds or updates a provider in config.json. The key is read from
// a prompt that does not echo, or from standard input when that is not a
// terminal; never from the command line, where other users could see it.
// On a terminal, what the flags leave out is asked for; a provider already
// saved offers its own values, and an empty key keeps its saved key.
func runLogin(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "login")
	name := fs.String("name", "", "the provider's name in config.json (asked on a terminal)")
	baseURL := fs.String("base-url", "", "the provider's base URL, e.g. https://api.openai.com/v1 (asked on a terminal)")
	protocol := fs.String("protocol", "", "responses or chat_completions (default: the saved one, else responses)")
	model := fs.String("model", "", "the model new sessions use (asked on a terminal)")
	activate := fs.Bool("activate", true, "make this the active provider for new sessions")
	noKey := fs.Bool("no-key", false, "the provider needs no API key")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"login takes only options; the key is read from a prompt or standard input"}
	}
	cfg, err := e.configFile()
	if err != nil {
		return err
	}
	p := albedo.ProviderConfig{Name: strings.TrimSpace(*name), BaseURL: strings.TrimSpace(*baseURL), Model: strings.TrimSpace(*model), Protocol: albedo.Protocol(strings.TrimSpace(*protocol))}
	// With no --name on a terminal every field is asked for, offering the
	// saved or default value; otherwise only what is missing and has no
	// saved value is, and the protocol defaults.
	terminal := isTerminal(e.stdin)
	askAll := terminal && p.Name == ""
	in := bufio.NewReader(e.stdin)
	if askAll {
		if p.Name, err = askLine(e, in, "Name", defaultLoginName); err != nil {
			return err
		}
	}
	saved, known := savedProvider(ctx, cfg, p.Name)
	fill := func(field *string, label, savedValue, fallback string, required bool) error {
		switch {
		case *field != "":
			return nil
		case askAll || terminal && required && savedValue == "":
			if savedValue != "" {
				fallback = savedValue
			}
			v, err := askLine(e, in, label, fallback)
			*field = v
			return err
		case savedValue != "":
			*field = savedValue
		case !required:
			*field = fallback
		}
		return nil
	}
	if err := fill(&p.BaseURL, "Base URL", saved.BaseURL, defaultLoginBaseURL, true); err != nil {
		return err
	}
	proto := string(p.Protocol)
	if err := fill(&proto, "Protocol (responses or chat_completions)", string(saved.Protocol), defaultLoginProtocol, false); err != nil {
		return err
	}
	p.Protocol = albedo.Protocol(proto)
	if err := fill(&p.Model, "Model", saved.Model, defaultLoginModel, true); err != nil {
		return err
	}
	if err := checkLogin(p); err != nil {
		return err
	}
	if !*noKey {
		keep := known && saved.APIKey != ""
		key, err := readSecret(e, p.Name, keep)
		if err != nil {
			return err
		}
		switch {
		case key != "":
			p.APIKey = key
		case keep:
			p.APIKey = saved.APIKey
		default:
			return usageError{"no API key was given (use --no-key for a provider that needs none)"}
		}
	}
	if err := cfg.SaveProvider(ctx, p, *activate); err != nil {
		return err
	}
	state := ""
	if *activate {
		state = " and made it active: new sessions use it"
	}
	fmt.Fprintf(e.stdout, "saved provider %q (%s, %s)%s\n", p.Name, p.Protocol, p.Model, state)
	return nil
}

// configFile returns config.json in the albedo home, making the home.
func (e *env) configFile() (*configfile.File, error) {
	dir, err := e.albedoHome()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create home %s: %w", dir, err)
	}
	return configfile.New(filepath.Join(dir, home.ConfigFile)), nil
}

// savedProvider returns the provider saved under name, if any.
func savedProvider(ctx context.Context, cfg *configfile.File, name string) (albedo.ProviderConfig, bool) {
	if name == "" {
		return albedo.ProviderConfig{}, false
	}
	c, err := cfg.Load(ctx)
	if err != nil {
		return albedo.ProviderConfig{}, false
	}
	p, ok := c.Providers[name]
	return p, ok
}

// askLine asks for one value on the terminal, offering fallback.
func askLine(e *env, in *bufio.Reader, label, fallback string) (string, error) {
	fmt.Fprintf(e.stderr, "%s [%s]: ", label, fallback)
	line, err := in.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read %s: %w", strings.ToLower(label), err)
	}
	if v := strings.TrimSpace(line); v != "" {
		return v, nil
	}
	if err == io.EOF {
		return "", usageError{"login: input ended before " + strings.ToLower(label)}
	}
	return fallback, nil
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

// readSecret reads one line, trimmed: from a prompt that does not echo
// when stdin is a terminal, else from stdin. keep says that an empty
// answer keeps the saved key, for the prompt to say so.
func readSecret(e *env, name string, keep bool) (string, error) {
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		// Watch for Ctrl-C before the prompt shows: a person may press it
		// as soon as they see it.
		stop := restoreOnInterrupt(e, int(f.Fd()))
		if keep {
			fmt.Fprintf(e.stderr, "API key for %s (Enter keeps the saved one): ", name)
		} else {
			fmt.Fprintf(e.stderr, "API key for %s: ", name)
		}
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
