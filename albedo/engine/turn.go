package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// stepOutcome is how one model round trip of a turn ended.
type stepOutcome int

const (
	// stepTools: the model called tools; ask it again with their outputs.
	stepTools stepOutcome = iota
	// stepAnswered: the model answered without calling a tool.
	stepAnswered
	// stepFailed: the request failed; the error is in the transcript.
	stepFailed
	// stepCancelled: the turn was interrupted or the service is closing.
	stepCancelled
)

// turn is one turn of a session: model, tools, model, ... until the model
// answers and no message is waiting. It holds what the turn knows and goes
// through its phases in order: deliver the waiting messages, ask the
// model, record its reply, run the calls, and at last record the end. Only
// the turn's goroutine uses it.
type turn struct {
	s   *Service
	st  *sessionState
	id  string
	run *run
	// sess is the stored session as the turn last read or wrote it. It is
	// read once per step, when the waiting messages are delivered; the
	// turn's own writes keep it current, and one that finds the row
	// changed by another writer reads it again (see writeRow).
	sess albedo.Session
	// instr are the turn's instructions, composed at its first step (nil
	// before it).
	instr *turnInstructions
	// servers are the tool servers' tools offered throughout the turn,
	// listed at its first step.
	servers turnServerTools
	// steps counts the model requests the turn made.
	steps int
	// rd is what the step read of the configuration.
	rd round
	// ledger holds the pending rows of the step's model request.
	ledger *ledger
	// snaps are the turn's snapshots of the workspace.
	snaps turnSnapshots
}

// startTurn runs a turn of sess in the background. The caller holds
// st.row and has just stored sess as running.
func (s *Service) startTurn(st *sessionState, sess albedo.Session) {
	t := &turn{s: s, st: st, id: sess.ID, sess: sess}
	s.startRun(st, func(ctx context.Context, r *run) {
		t.run = r
		t.loop(ctx)
	})
}

// loop drives the turn to its end. There is no ceiling on the number of
// rounds.
func (t *turn) loop(ctx context.Context) {
	for {
		switch t.step(ctx) {
		case stepTools:
			continue
		case stepAnswered:
			if t.finish(ctx, albedo.TurnFinished, false) {
				return
			}
		case stepFailed:
			t.finish(ctx, albedo.TurnFailed, true)
			return
		case stepCancelled:
			if cause := context.Cause(ctx); errors.Is(cause, errShutdown) || errors.Is(cause, errLeaseLost) {
				if errors.Is(cause, errShutdown) {
					t.s.flushOutput(t.id)
				}
				t.abandon()
				return
			}
			t.finish(ctx, albedo.TurnInterrupted, true)
			return
		}
	}
}

// step makes one model request and runs the tool calls it returns. The
// turn's instructions are composed at its first step.
func (t *turn) step(ctx context.Context) stepOutcome {
	s, st := t.s, t.st
	t.steps++
	// The files are read, and the note about their changes made, before
	// the waiting messages are delivered, so that the note joins them.
	note, serversNote := "", ""
	var files albedo.InstructionSet
	first := t.instr == nil
	if first {
		s.warmKernel(ctx, st, t.sess)
		t.startSnapshot(ctx)
		files = s.projectInstructions(ctx, t.sess)
		note = st.instructionsRead(files)
		t.servers = s.listServerTools(ctx, t.sess)
		serversNote = st.servers.note(t.servers)
	}
	delivered, err := t.deliver(ctx, joinNotes(note, serversNote))
	if err != nil {
		return t.fail(ctx, err)
	}
	if first {
		if note == "" || delivered {
			st.instructionsNoted(files)
		}
		if serversNote == "" || delivered {
			st.servers.noted(t.servers)
		}
		composed := s.composeTurnInstructions(ctx, t.sess, files)
		if extra := t.servers.instructions(); extra != "" {
			composed.text += "\n\n" + extra
		}
		st.instructionsSent(composed.used)
		t.instr = &composed
	}
	if t.rd, err = s.readRound(ctx, t.sess); err != nil {
		return t.fail(ctx, err)
	}
	items, err := s.transcript(ctx, st, t.id)
	if err != nil {
		return t.fail(ctx, err)
	}
	if first && t.sess.Compacting == albedo.CompactForced {
		s.resumeForcedCompaction(ctx, t.id, items, t.rd.ep, t.rd.win.tokens())
	}
	req, err := t.request(ctx, items)
	if err != nil {
		return t.fail(ctx, err)
	}
	reply, err := t.ask(ctx, items, req)
	if ctx.Err() != nil {
		return stepCancelled
	}
	if err != nil {
		t.keepPartial(ctx, reply.Items)
		return t.failAsking(ctx, err)
	}
	calls, err := t.recordReply(ctx, reply)
	if err != nil {
		return t.fail(ctx, err)
	}
	if ctx.Err() != nil {
		// Interrupted while the reply was being recorded: its calls are
		// closed unrun, as those of a reply interrupted before it came.
		return stepCancelled
	}
	if len(calls) == 0 {
		return stepAnswered
	}
	for _, call := range calls {
		before := t.snapshotBefore(ctx)
		out := t.runCall(ctx, call)
		t.snapshotAfter(ctx, before, out)
		if _, err := t.append(context.WithoutCancel(ctx), out...); err != nil {
			return t.fail(ctx, err)
		}
		s.forgetOutput(context.WithoutCancel(ctx), t.id, call.Seq)
	}
	if ctx.Err() != nil {
		return stepCancelled
	}
	return stepTools
}

// request makes the step's model request over items, the transcript,
// compacting first when the session's context asks for it.
func (t *turn) request(ctx context.Context, items []albedo.Item) (albedo.ModelRequest, error) {
	s, rd := t.s, t.rd
	input, err := s.projectInput(ctx, t.id, items, rd.ep)
	if err != nil {
		return albedo.ModelRequest{}, err
	}
	req := albedo.ModelRequest{
		Endpoint:     rd.ep,
		Instructions: t.instr.text,
		Input:        input,
		Tools:        append(s.toolDeclarations(), t.servers.decls...),
		SessionID:    t.id,
	}
	return s.autoCompact(ctx, t.id, items, req, rd)
}

// ask sends req and returns the reply; a request too large for the
// model's context is compacted and asked once more.
func (t *turn) ask(ctx context.Context, items []albedo.Item, req albedo.ModelRequest) (albedo.ModelReply, error) {
	s, rd := t.s, t.rd
	onDelta := func(d albedo.Delta) {
		t.st.hub.publish(albedo.Event{Type: wire.EventDelta, Kind: string(d.Kind), Text: d.Text})
	}
	t.ledger = s.newLedger(t.id, albedo.RequestTurn, rd.ep, conversational(items), req)
	req.OnAttempt = t.ledger.attempt
	reply, err := s.provider.Stream(ctx, req, onDelta)
	t.ledger.finish(ctx, reply, err)
	t.ledger = nil
	if err != nil && ctx.Err() == nil && albedo.ContextFull(err) {
		reply, err = s.retryCompacted(ctx, t.id, items, req, err, onDelta, rd.win.tokens())
	}
	// A long transcript is not held while the model answers: the request
	// has what it needs, and the next step reads the transcript again.
	t.st.cache.forgetIfBig()
	if err != nil {
		return reply, fmt.Errorf("ask %s (%s): %w", rd.ep.Provider, rd.ep.Model, err)
	}
	return reply, nil
}

// recordReply stores the model's reply, tells subscribers of it and of the
// usage, and returns the tool calls it made.
func (t *turn) recordReply(ctx context.Context, reply albedo.ModelReply) ([]albedo.Item, error) {
	now := t.s.now()
	for i := range reply.Items {
		reply.Items[i].Timestamp = now
		reply.Items[i].Protocol = cmp.Or(reply.Items[i].Protocol, t.rd.ep.Protocol)
	}
	stored, err := t.append(ctx, reply.Items...)
	if err != nil {
		return nil, err
	}
	t.st.hub.publish(t.s.usageEvent(ctx, t.st, t.sess, t.rd.win, reply.Usage))
	var calls []albedo.Item
	for _, it := range stored {
		if it.Kind == albedo.KindToolCall {
			calls = append(calls, it)
		}
	}
	return calls, nil
}

// joinNotes joins the notes that are not empty into one, a line each.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "\n")
}

// keepPartial records the text, reasoning and notes that streamed before
// a reply failed, flagged partial, so that a reload still shows them. Tool
// calls of a failed reply are never kept: they would run.
func (t *turn) keepPartial(ctx context.Context, items []albedo.Item) {
	var keep []albedo.Item
	for _, it := range items {
		if (it.Kind != albedo.KindAssistant && it.Kind != albedo.KindReasoning && it.Kind != albedo.KindNote) || it.Text == "" {
			continue
		}
		it.Flags |= albedo.FlagPartial
		it.Timestamp = t.s.now()
		it.Protocol = cmp.Or(it.Protocol, t.rd.ep.Protocol)
		keep = append(keep, it)
	}
	if _, err := t.append(context.WithoutCancel(ctx), keep...); err != nil {
		t.s.log.Error("record partial reply", "session", t.id, "err", err)
	}
}
