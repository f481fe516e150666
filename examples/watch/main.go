// Command watch prints what happens in every session of a running albedo
// daemon, one line per event, as it happens. It finds the daemon through
// the home's daemon.json, prints each session's events so far, follows
// them live, and picks up sessions created while it runs.
//
// Usage:
//
//	watch [-home DIR] [-deltas] [-poll DURATION]
//
// Each line starts with the session's id. Streamed fragments of the
// model's text are left out unless -deltas is given. It never starts a
// daemon; run `albedo daemon` (or any albedo command) first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/home"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "watch:", err)
		os.Exit(1)
	}
}

// run is the program: it watches until ctx ends (and then returns nil) or
// the daemon can no longer be reached.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("watch", flag.ContinueOnError)
	homeDir := flags.String("home", "", "albedo home of the daemon (default $ALBEDO_HOME, or ~/.albedo)")
	deltas := flags.Bool("deltas", false, "print streamed fragments too")
	poll := flags.Duration("poll", time.Second, "how often to look for new sessions")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flags.Args())
	}
	if *poll <= 0 {
		return errors.New("-poll must be positive")
	}
	dir := *homeDir
	if dir == "" {
		d, err := home.Dir()
		if err != nil {
			return err
		}
		dir = d
	}
	c, err := client.Dial(ctx, client.DialOptions{Home: dir, NoStart: true})
	if errors.Is(err, client.ErrNoDaemon) {
		return fmt.Errorf("no albedo daemon serves %s: start one with `albedo daemon`", dir)
	}
	if err != nil {
		return fmt.Errorf("reach the daemon of %s: %w", dir, err)
	}
	w := &watcher{client: c, out: &lines{w: stdout}, deltas: *deltas, seen: make(map[string]int64)}
	return w.run(ctx, *poll)
}

// watcher follows every session of one daemon.
type watcher struct {
	client *client.Client
	out    *lines
	deltas bool

	mu sync.Mutex
	// seen is the last durable event printed per session, so that a
	// session watched again does not repeat itself.
	seen map[string]int64
}

// run looks for sessions every poll and follows each new one until ctx
// ends. A session whose stream ended is followed again at once.
func (w *watcher) run(ctx context.Context, poll time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	ended := make(chan string)
	following := make(map[string]bool)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		sessions, err := w.client.Sessions(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list sessions: %w", err)
		}
		for i := len(sessions) - 1; i >= 0; i-- { // oldest first
			s := sessions[i]
			if following[s.ID] {
				continue
			}
			following[s.ID] = true
			wg.Go(func() {
				w.follow(ctx, s)
				select {
				case ended <- s.ID:
				case <-ctx.Done():
				}
			})
		}
		select {
		case <-ctx.Done():
			return nil
		case id := <-ended:
			delete(following, id)
		case <-tick.C:
		}
	}
}

// follow prints a session's events until its stream ends.
func (w *watcher) follow(ctx context.Context, s wire.Session) {
	stream, err := w.client.Subscribe(ctx, s.ID)
	if err != nil {
		if ctx.Err() == nil {
			w.out.print(s.ID, fmt.Sprintf("cannot watch: %v", err))
		}
		return
	}
	defer stream.Close()
	w.out.print(s.ID, fmt.Sprintf("watching %q in %s", s.Title, s.Workspace))
	for _, ev := range stream.Snapshot {
		w.show(s.ID, ev)
	}
	for ev, err := range stream.Events() {
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, wire.ErrStreamEnded) {
				w.out.print(s.ID, fmt.Sprintf("stream failed: %v", err))
			}
			return
		}
		w.show(s.ID, ev)
	}
}

// show prints an event unless it was printed before or is a fragment
// nobody asked for.
func (w *watcher) show(id string, ev wire.Event) {
	if ev.Type == wire.EventDelta && !w.deltas {
		return
	}
	if ev.Durable() {
		w.mu.Lock()
		old := ev.Seq <= w.seen[id]
		if !old {
			w.seen[id] = ev.Seq
		}
		w.mu.Unlock()
		if old {
			return
		}
	}
	w.out.print(id, describe(ev))
}

// lines writes whole lines, one writer at a time.
type lines struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lines) print(session, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s %s\n", session, text)
}
