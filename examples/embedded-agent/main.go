// Command embedded-agent runs albedo inside this program, with no daemon:
// it opens an albedo home, creates a session in a workspace, sends one
// prompt, waits for the turn to end and prints the model's answer.
//
// Usage:
//
//	embedded-agent [-home DIR] [-workspace DIR] PROMPT...
//
// The home holds config.json, which names the model provider, and the
// database the session is kept in. A home served by a running daemon is
// refused; give this program a home of its own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embedded-agent:", err)
		os.Exit(1)
	}
}

// run is the program: it parses args and prints the answer to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("embedded-agent", flag.ContinueOnError)
	homeDir := flags.String("home", "", "albedo home with config.json (default $ALBEDO_HOME, or ~/.albedo)")
	workspace := flags.String("workspace", ".", "the folder the model works in")
	if err := flags.Parse(args); err != nil {
		return err
	}
	prompt := strings.Join(flags.Args(), " ")
	if strings.TrimSpace(prompt) == "" {
		return errors.New("say what to ask: embedded-agent [-home DIR] [-workspace DIR] PROMPT...")
	}
	ws, err := filepath.Abs(*workspace)
	if err != nil {
		return fmt.Errorf("resolve workspace: %w", err)
	}

	a, err := embedded.Open(ctx, embedded.Options{Home: *homeDir})
	if err != nil {
		return err
	}
	defer a.Close()
	answer, err := ask(ctx, a, ws, prompt)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, answer)
	return err
}

// ask runs prompt in a new session and returns the model's answer. It is
// written against wire.Agent, so it runs unchanged on a daemon through
// the HTTP client.
func ask(ctx context.Context, agent wire.Agent, workspace, prompt string) (string, error) {
	s, err := agent.CreateSession(ctx, workspace, "")
	if err != nil {
		return "", err
	}
	if _, err := agent.Send(ctx, s.ID, prompt, nil); err != nil {
		return "", err
	}
	if err := agent.Wait(ctx, s.ID); err != nil {
		return "", err
	}
	history, err := agent.History(ctx, s.ID)
	if err != nil {
		return "", err
	}
	return answer(history)
}

// answer reads the model's last message from a finished turn's transcript,
// or the reason the turn did not finish.
func answer(history []wire.HistoryItem) (string, error) {
	var text, failure, outcome string
	for _, it := range history {
		switch it.Kind {
		case "assistant":
			text = it.Text
		case "error":
			failure = it.Text
		case "turn":
			outcome = it.Text
		}
	}
	switch {
	case outcome == wire.TurnFinished:
		return text, nil
	case failure != "":
		return "", fmt.Errorf("the turn %s: %s", outcome, failure)
	}
	return "", fmt.Errorf("the turn ended %s", outcome)
}
