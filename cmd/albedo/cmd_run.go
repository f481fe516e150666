package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
)

// reconnectFor bounds how long run waits for a daemon that went away.
const reconnectFor = 60 * time.Second

func runRun(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "run")
	sessionRef := fs.String("session", "", "send to `SESSION` (an id, a name or a unique id prefix) instead of a new session")
	workspace := fs.String("workspace", "", "make the new session in `DIR` (default: the current folder)")
	asJSON := fs.Bool("json", false, "print the turn's events as JSON lines on stdout instead of the answer")
	cont := fs.Bool("continue", false, "send to the most recent session in this folder (or --workspace DIR) instead of a new one")
	skill := fs.String("skill", "", "send the prompt with the instructions of the skill `NAME` (the prompt may then be left out)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *sessionRef != "" && *workspace != "" {
		return usageError{"--session and --workspace exclude each other: a session has its workspace"}
	}
	if *sessionRef != "" && *cont {
		return usageError{"--session and --continue exclude each other"}
	}
	prompt, err := readPrompt(e, fs.Args(), *skill != "")
	if err != nil {
		return err
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	if *cont {
		latest, err := latestIn(ctx, c, *workspace)
		if err != nil {
			return err
		}
		*sessionRef = latest.ID
		fmt.Fprintf(e.stderr, "albedo: continuing session %s “%s” in %s\n", latest.ID, latest.Title, latest.Workspace)
	}
	s, err := runSession(ctx, e, c, *sessionRef, *workspace)
	if err != nil {
		return err
	}
	r := &turnRun{e: e, id: s.ID, workspace: s.Workspace, json: *asJSON, skill: *skill}
	return r.run(ctx, c, prompt)
}

// readPrompt takes the prompt from the arguments, or else from stdin.
// With a skill the prompt may be empty, and a terminal is not asked for
// one.
func readPrompt(e *env, args []string, skill bool) (string, error) {
	prompt := strings.Join(args, " ")
	if prompt == "" && skill && isTerminal(e.stdin) {
		return "", nil
	}
	if prompt == "" {
		if isTerminal(e.stdin) {
			fmt.Fprintln(e.stderr, "albedo: type the prompt, then Ctrl-D")
		}
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return "", fmt.Errorf("read the prompt from stdin: %w", err)
		}
		prompt = strings.TrimRight(string(data), "\r\n")
	}
	if strings.TrimSpace(prompt) == "" && !skill {
		return "", usageError{"nothing to send: give a PROMPT or pipe one on stdin"}
	}
	return prompt, nil
}

// runSession finds the session named, or makes a new one in workspace.
func runSession(ctx context.Context, e *env, c *client.Client, ref, workspace string) (wire.Session, error) {
	if ref != "" {
		id, err := findSession(ctx, c, ref)
		if err != nil {
			return wire.Session{}, err
		}
		d, err := c.Session(ctx, id, 0)
		return d.Session, err
	}
	abs, err := workspaceDir(workspace)
	if err != nil {
		return wire.Session{}, err
	}
	s, err := c.CreateSession(ctx, abs, "")
	if err != nil {
		return wire.Session{}, err
	}
	fmt.Fprintf(e.stderr, "albedo: new session %s in %s (%s · %s)\n", s.ID, s.Workspace, s.Provider, s.Model)
	return s, nil
}

// latestIn returns the most recently updated session in dir (default:
// the current folder).
func latestIn(ctx context.Context, c *client.Client, dir string) (wire.Session, error) {
	abs, err := workspaceDir(dir)
	if err != nil {
		return wire.Session{}, err
	}
	found, _, err := c.FindSessions(ctx, wire.SessionFilter{Workspace: abs, Limit: 1})
	if err != nil {
		return wire.Session{}, err
	}
	if len(found) == 0 {
		return wire.Session{}, fmt.Errorf("no session in %s to continue: leave out --continue to start one", abs)
	}
	return found[0], nil
}

// turnRun sends one prompt and follows its turn to the end.
type turnRun struct {
	e *env
	// skill names the skill sent with the prompt, "" for none.
	skill     string
	id        string
	workspace string
	json      bool
	// streamed is the text of the answer streaming now, as printed.
	streamed strings.Builder
	// printed says an answer was printed; thinking that stderr is in the
	// middle of a line of reasoning.
	printed, thinking bool
	// before is the session's usage before the prompt (with --json).
	before wire.UsageTotals
	// end is the turn's last event, printed last with the turn's usage
	// (with --json).
	end *wire.Event
}

// send gives the session the prompt, with the skill's instructions when
// there is one (the daemon's /skill command).
func (r *turnRun) send(ctx context.Context, c *client.Client, prompt string) (queued bool, err error) {
	if r.skill == "" {
		return c.Send(ctx, r.id, prompt, nil)
	}
	raw, err := c.Command(ctx, r.id, "/skill", map[string]string{"skill": r.skill, "text": prompt})
	if err != nil {
		return false, err
	}
	var res wire.SkillStarted
	if err := json.Unmarshal(raw, &res); err != nil {
		return false, fmt.Errorf("read the answer of /skill: %w", err)
	}
	if !r.json {
		fmt.Fprintf(r.e.stderr, "albedo: with the skill %s (%s)\n", res.Skill, res.Source)
	}
	return res.Queued, nil
}

// run subscribes, sends, and follows the turn, reconnecting when the
// daemon goes away and interrupting the turn when ctx is cancelled.
func (r *turnRun) run(ctx context.Context, c *client.Client, prompt string) error {
	// The turn's events are all that matter: a snapshot of the last event
	// tells where the session stands, however long it is.
	stream, err := c.SubscribeFrom(ctx, r.id, client.SubscribeOptions{Tail: 1})
	if err != nil {
		return err
	}
	w := newTurnWatcher(prompt, lastSeq(stream.Snapshot))
	w.skill = strings.TrimPrefix(r.skill, "/")
	// stream is replaced on reconnect: close whichever one is open last.
	defer func() { stream.Close() }()
	if r.json {
		if d, err := c.Session(ctx, r.id, 0); err == nil {
			r.before = d.Session.Usage
		}
	}
	queued, err := r.send(ctx, c, prompt)
	if errors.Is(err, client.ErrMaybeDelivered) {
		return fmt.Errorf("the daemon stopped while it was taking the prompt, so albedo cannot know whether session %s got it; see its transcript with 'albedo attach %s' before sending it again", r.id, r.id)
	}
	if err != nil {
		return err
	}
	if queued && !r.json {
		fmt.Fprintln(r.e.stderr, "albedo: the session is busy; the prompt joins its running turn")
	}
	for {
		// The first snapshot holds nothing after the prompt; a reopened
		// stream's holds what the daemon committed while it was away.
		wire.Replay(stream.Snapshot, stream.Events(), func(ev wire.Event, err error) bool {
			return err == nil && !r.take(w, ev)
		})
		if w.done {
			break
		}
		stream.Close()
		if ctx.Err() != nil {
			return r.interrupt(c)
		}
		if !r.json {
			fmt.Fprintln(r.e.stderr, "albedo: lost the daemon, reconnecting…")
		}
		redialed, reopened, err := r.resubscribe(ctx, stream.LastEventID())
		if redialed != nil {
			c = redialed
		}
		if err != nil {
			if ctx.Err() != nil {
				return r.interrupt(c)
			}
			return fmt.Errorf("follow session %s: %w", r.id, err)
		}
		stream = reopened
	}
	r.endThinking()
	if r.end != nil {
		r.printEnd(ctx, c)
	}
	return w.err()
}

// turnLine is the last line of --json: the turn's end with its usage,
// summed over the turn's successful model requests.
type turnLine struct {
	wire.Event
	Usage wire.UsageTotals `json:"usage"`
}

// printEnd prints the turn's last event with the turn's usage.
func (r *turnRun) printEnd(ctx context.Context, c *client.Client) {
	line := turnLine{Event: *r.end}
	if d, err := c.Session(ctx, r.id, 0); err == nil {
		line.Usage = d.Session.Usage.Minus(r.before)
	}
	if data, err := json.Marshal(line); err == nil {
		fmt.Fprintf(r.e.stdout, "%s\n", data)
	}
}

// take shows an event of the turn and reports whether the turn is over.
func (r *turnRun) take(w *turnWatcher, ev wire.Event) bool {
	if !w.take(ev) {
		return false
	}
	switch {
	case r.json && w.done:
		r.end = &ev
	case r.json:
		data, err := json.Marshal(ev)
		if err == nil {
			fmt.Fprintf(r.e.stdout, "%s\n", data)
		}
	default:
		r.show(ev)
	}
	return w.done
}

// show prints an event of the turn as it comes: the answer's text on
// stdout, reasoning, cells and retries on stderr. Failures are left to
// the error the run returns, so that each is printed once.
func (r *turnRun) show(ev wire.Event) {
	out, errs := r.e.stdout, r.e.stderr
	switch {
	case ev.Type == wire.EventDelta && ev.Kind == wire.DeltaText:
		r.endThinking()
		if r.streamed.Len() == 0 && r.printed {
			fmt.Fprintln(out) // a blank line between answers
		}
		io.WriteString(out, ev.Text)
		r.streamed.WriteString(ev.Text)
	case ev.Type == wire.EventDelta && ev.Kind == wire.DeltaReasoning:
		if !r.thinking {
			io.WriteString(errs, "∴ ")
			r.thinking = true
		}
		io.WriteString(errs, strings.ReplaceAll(ev.Text, "\n", " "))
	case ev.Type == wire.EventDelta && ev.Kind == wire.DeltaRetry:
		r.endThinking()
		fmt.Fprintln(errs, "albedo: "+ev.Text)
	case ev.Type == wire.EventDelta:
	case ev.Type == wire.EventThinking:
		r.endThinking()
	case ev.Type == wire.EventMessage:
		r.endThinking()
		shown := r.streamed.String()
		r.streamed.Reset()
		rest := ev.Text
		switch {
		case shown == "" && r.printed:
			fmt.Fprintln(out)
		case strings.HasPrefix(ev.Text, shown):
			rest = ev.Text[len(shown):]
		default:
			rest = "\n" + ev.Text // the stored text differs: print it whole
		}
		if !strings.HasSuffix(ev.Text, "\n") {
			rest += "\n"
		}
		io.WriteString(out, rest)
		r.printed = true
	case ev.Type == wire.EventError, ev.Type == wire.EventTurn:
		r.endThinking()
	default:
		r.endThinking()
		progress(errs, ev, r.workspace)
	}
}

// endThinking ends a line of reasoning on stderr.
func (r *turnRun) endThinking() {
	if r.thinking {
		fmt.Fprintln(r.e.stderr)
		r.thinking = false
	}
}

// resubscribe dials the daemon again (starting one if none runs, so an
// interrupted turn resumes) and reopens the stream after the last event
// seen.
func (r *turnRun) resubscribe(ctx context.Context, after int64) (*client.Client, *client.Stream, error) {
	deadline := time.Now().Add(reconnectFor)
	wait := 100 * time.Millisecond
	for {
		c, err := r.e.dial(ctx)
		if err == nil {
			var s *client.Stream
			if s, err = c.SubscribeFrom(ctx, r.id, client.SubscribeOptions{After: after}); err == nil {
				return c, s, nil
			}
		}
		if time.Now().After(deadline) || wire.ErrorCode(err) == wire.CodeNotFound {
			return c, nil, err
		}
		select {
		case <-ctx.Done():
			return c, nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 2*time.Second)
	}
}

// interrupt stops the turn after the user pressed Ctrl-C.
func (r *turnRun) interrupt(c *client.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Interrupt(ctx, r.id); err != nil {
		return fmt.Errorf("interrupt the turn: %w", err)
	}
	return errors.New("interrupted: the turn was stopped")
}

// lastSeq returns the highest item id among events.
func lastSeq(events []wire.Event) int64 {
	var n int64
	for _, ev := range events {
		n = max(n, ev.Seq)
	}
	return n
}

// progress tells stderr what the turn does: cells, their outcomes, errors
// and notes from albedo. Paths in workspace are shown relative to it.
// (albedo run leaves errors and the turn's end to the error it returns.)
func progress(w io.Writer, ev wire.Event, workspace string) {
	switch ev.Type {
	case wire.EventToolCall:
		code := strings.TrimSpace(ev.Code)
		first, _, more := strings.Cut(code, "\n")
		suffix := ""
		if more {
			suffix = fmt.Sprintf(" (+%d lines)", strings.Count(code, "\n"))
		}
		fmt.Fprintf(w, "⚙ %s #%d: %s%s\n", ev.Name, ev.Seq, clip(first, 100), suffix)
	case wire.EventTool:
		cell, _ := ev.Cell()
		line := "  → " + cell.Status
		if cell.DurationMS > 0 {
			line += " " + client.FormatDuration(cell.DurationMS)
		}
		if s := ev.Trace.Summary(workspace); s != "" {
			line += " · " + s
		}
		if cell.Status != "ok" && cell.Error != "" {
			lines := strings.Split(strings.TrimSpace(cell.Error), "\n")
			line += ": " + clip(lines[len(lines)-1], 120)
		}
		fmt.Fprintln(w, line)
		printedTail(w, cell)
	case wire.EventError:
		fmt.Fprintln(w, "✗ "+ev.Text)
	case wire.EventUser:
		if ev.Source != "" {
			fmt.Fprintf(w, "· %s: %s\n", ev.Source, clip(firstLine(ev.Text), 100))
		}
	case wire.EventTurn:
		if ev.Status != wire.TurnFinished {
			fmt.Fprintf(w, "── turn %s\n", ev.Status)
		}
	}
}

// printedRows bounds how many of a cell's last printed lines progress shows.
const printedRows = 5

// printedTail shows the last lines a cell printed and its value, under its
// outcome.
func printedTail(w io.Writer, cell wire.CellResult) {
	out := strings.TrimRight(cell.Output, "\n")
	if strings.TrimSpace(out) != "" {
		lines := strings.Split(out, "\n")
		if n := len(lines) - printedRows; n > 0 {
			fmt.Fprintf(w, "    │ … %d earlier lines\n", n)
			lines = lines[n:]
		}
		for _, l := range lines {
			fmt.Fprintln(w, "    │ "+clip(l, 160))
		}
	}
	if cell.Value != "" {
		fmt.Fprintln(w, "    = "+clip(firstLine(cell.Value), 160))
	}
}

// firstLine returns the first line of text.
func firstLine(text string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return first
}

// turnWatcher follows the events of the turn a prompt starts: from the
// user item holding the prompt to the turn marker. Replayed events (a
// snapshot after a reconnect) are recognised by their item ids.
type turnWatcher struct {
	prompt string
	// skill, when not "", names the skill sent with the prompt: the user
	// item then starts with the prompt (or "/skill") and the skill's
	// element.
	skill string
	// after is the last item id before the prompt was sent.
	after int64
	// seen is the highest item id seen.
	seen    int64
	started bool
	done    bool
	status  string
	errors  []string
}

func newTurnWatcher(prompt string, after int64) *turnWatcher {
	return &turnWatcher{prompt: prompt, after: after, seen: after}
}

// take considers an event and reports whether it belongs to the turn.
func (w *turnWatcher) take(ev wire.Event) bool {
	if w.done {
		return false
	}
	if ev.Seq != 0 {
		if ev.Seq <= w.seen {
			return false
		}
		w.seen = ev.Seq
	}
	if !w.started {
		if ev.Type != wire.EventUser || ev.Source != "" || ev.Seq <= w.after || !w.isPrompt(ev.Text) {
			return false
		}
		w.started = true
	}
	switch ev.Type {
	case wire.EventError:
		w.errors = append(w.errors, ev.Text)
	case wire.EventTurn:
		w.done, w.status = true, ev.Status
	}
	return true
}

// isPrompt reports whether a user item's text is the prompt sent.
func (w *turnWatcher) isPrompt(text string) bool {
	if w.skill == "" {
		return text == w.prompt
	}
	first := w.prompt
	if strings.TrimSpace(first) == "" {
		first = "/" + w.skill
	}
	return strings.HasPrefix(text, first+"\n\n<skill name=\""+w.skill+"\" ")
}

// err says why the turn did not finish well, or nil.
func (w *turnWatcher) err() error {
	switch {
	case w.status == wire.TurnInterrupted:
		return errors.New("the turn was interrupted")
	case w.status == wire.TurnFailed || len(w.errors) > 0:
		if n := len(w.errors); n > 0 {
			return fmt.Errorf("the turn failed: %s", w.errors[n-1])
		}
		return errors.New("the turn failed")
	case !w.done:
		return errors.New("the turn did not end")
	}
	return nil
}
