package embedded_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

// exampleOptions wires albedo to in-memory fakes: a store, a model that
// runs one cell and then answers, a kernel that prints 42, and a
// configuration naming one provider. A real program leaves these nil to
// get the SQLite store, the HTTP providers of config.json and the Python
// kernel.
func exampleOptions() embedded.Options {
	calls := 0
	provider := fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply {
		calls++
		if calls%2 == 1 {
			return fakes.Python("print(6 * 7)")
		}
		return fakes.Text("6 × 7 is 42.")
	})
	kernel := fakes.NewKernel()
	kernel.SetResult(func(int, albedo.Cell) (albedo.CellResult, error) {
		return albedo.CellResult{Status: albedo.CellOK, Output: "42\n"}, nil
	})
	config := fakes.NewConfig("local", albedo.ProviderConfig{
		Name: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: "qwen3-coder", Protocol: albedo.ProtocolChatCompletions,
	})
	return embedded.Options{Store: memstore.New(), Provider: provider, Kernel: kernel, Config: config}
}

// describe prints an event as one line.
func describe(ev wire.Event) string {
	switch ev.Type {
	case wire.EventToolCall:
		return fmt.Sprintf("%s %s: %s", ev.Type, ev.Name, ev.Code)
	case wire.EventTool:
		cell, _ := ev.Cell()
		return fmt.Sprintf("%s %s: %s", ev.Type, cell.Status, strings.TrimSpace(cell.Output))
	case wire.EventTurn:
		return fmt.Sprintf("%s %s", ev.Type, ev.Status)
	}
	return fmt.Sprintf("%s: %s", ev.Type, ev.Text)
}

// Open albedo in process, give a session one prompt, wait for the turn to
// end and read what happened.
func ExampleOpen() {
	ctx := context.Background()
	a, err := embedded.Open(ctx, exampleOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	s, err := a.CreateSession(ctx, os.TempDir(), "")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.Send(ctx, s.ID, "What is 6 × 7?", nil); err != nil {
		log.Fatal(err)
	}
	if err := a.Wait(ctx, s.ID); err != nil {
		log.Fatal(err)
	}
	detail, err := a.Session(ctx, s.ID, -1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(detail.Session.Title, "on", detail.Session.Model)
	for _, ev := range detail.Events {
		fmt.Println(describe(ev))
	}
	// Output:
	// What is 6 × 7? on qwen3-coder
	// user: What is 6 × 7?
	// tool_call python: print(6 * 7)
	// tool ok: 42
	// message: 6 × 7 is 42.
	// turn finished
}

// Follow a turn as it happens: subscribe before sending, then read events
// until the turn's end marker.
func ExampleAlbedo_Subscribe() {
	ctx := context.Background()
	a, err := embedded.Open(ctx, exampleOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	s, err := a.CreateSession(ctx, os.TempDir(), "")
	if err != nil {
		log.Fatal(err)
	}

	stream, err := a.Subscribe(ctx, s.ID)
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	if _, err := a.Send(ctx, s.ID, "What is 6 × 7?", nil); err != nil {
		log.Fatal(err)
	}
	for ev, err := range stream.Events() {
		if err != nil {
			log.Fatal(err)
		}
		if !ev.Durable() {
			continue // deltas, queue and status signals
		}
		fmt.Println(describe(ev))
		if ev.Type == wire.EventTurn {
			break
		}
	}
	// Output:
	// user: What is 6 × 7?
	// tool_call python: print(6 * 7)
	// tool ok: 42
	// message: 6 × 7 is 42.
	// turn finished
}

// Branch a session from one of its checkpoints: the branch keeps the
// transcript up to there and the source is untouched.
func ExampleAlbedo_Fork() {
	ctx := context.Background()
	a, err := embedded.Open(ctx, exampleOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	s, err := a.CreateSession(ctx, os.TempDir(), "")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.Send(ctx, s.ID, "What is 6 × 7?", nil); err != nil {
		log.Fatal(err)
	}
	if err := a.Wait(ctx, s.ID); err != nil {
		log.Fatal(err)
	}

	tree, err := a.Tree(ctx, s.ID, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	for _, node := range tree.Items {
		fmt.Println(node.ID, node.Type, node.Preview)
	}
	branch, err := a.Fork(ctx, s.ID, tree.Items[1].ID)
	if err != nil {
		log.Fatal(err)
	}
	history, err := a.History(ctx, branch.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("branch of", branch.ParentID == s.ID, "at", branch.Checkpoint)
	for _, it := range history {
		switch it.Kind {
		case "tool_call":
			fmt.Println(it.Kind, it.Arguments)
		case "tool_result":
			fmt.Println(it.Kind, it.Content[0].Text)
		default:
			fmt.Println(it.Kind, it.Text)
		}
	}
	// Output:
	// 1 user What is 6 × 7?
	// 2 assistant call python
	// 3 tool ok: 42
	// 4 assistant 6 × 7 is 42.
	// branch of true at 2
	// user What is 6 × 7?
	// tool_call {"code":"print(6 * 7)"}
	// tool_result not executed after branch checkpoint
}

// Code written against Agent runs on an embedded albedo and, unchanged,
// on a daemon through the HTTP client.
func ExampleAgent() {
	ctx := context.Background()
	a, err := embedded.Open(ctx, exampleOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	answer, err := ask(ctx, a, os.TempDir(), "What is 6 × 7?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
	// Output:
	// 6 × 7 is 42.
}

// ask runs one prompt in a new session and returns the model's last
// message.
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
	answer := ""
	for _, it := range history {
		if it.Kind == "assistant" {
			answer = it.Text
		}
	}
	return answer, nil
}

// Errors carry albedo's codes whether they come from an embedded albedo or
// from a daemon.
func Example_errorCode() {
	ctx := context.Background()
	a, err := embedded.Open(ctx, exampleOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	_, err = a.Send(ctx, "no-such-session", "hello", nil)
	fmt.Println(wire.ErrorCode(err) == albedo.ENotFound)
	// Output:
	// true
}
