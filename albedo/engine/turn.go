package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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

// startTurn runs a turn in the background. The caller holds st.mu and has
// recorded the session as running.
func (s *Service) startTurn(st *sessionState, id string) {
	s.startRun(st, func(ctx context.Context) { s.runTurn(ctx, st, id) })
}

// startRun runs what a session does as a turn (a turn, or a /compact) in
// the background: the session is busy, subscribers hear it run, an
// interrupt or Close cancels ctx, and Close waits for it. The caller holds
// st.mu.
func (s *Service) startRun(st *sessionState, run func(ctx context.Context)) {
	ctx, cancel := context.WithCancelCause(context.Background())
	t := &turn{cancel: cancel, done: make(chan struct{})}
	st.turn = t
	st.busy.Store(true)
	s.workers.Add(1)
	st.hub.publish(statusEvent(true))
	go func() {
		defer s.workers.Done()
		defer close(t.done)
		defer cancel(nil)
		run(ctx)
	}()
}

func statusEvent(running bool) albedo.Event {
	return albedo.Event{Type: wire.EventStatus, Running: &running}
}

// runTurn drives a turn: model, tools, model, ... until the model answers
// and no message is waiting. There is no ceiling on the number of rounds.
func (s *Service) runTurn(ctx context.Context, st *sessionState, id string) {
	var instr *turnInstructions
	for {
		switch s.step(ctx, st, id, &instr) {
		case stepTools:
			continue
		case stepAnswered:
			if s.finish(ctx, st, id, albedo.TurnFinished, false) {
				return
			}
		case stepFailed:
			s.finish(ctx, st, id, albedo.TurnFailed, true)
			return
		case stepCancelled:
			if errors.Is(context.Cause(ctx), errShutdown) {
				s.abandon(st)
				return
			}
			s.finish(ctx, st, id, albedo.TurnInterrupted, true)
			return
		}
	}
}

// step makes one model request and runs the tool calls it returns. The
// turn's instructions are read at its first step (*instr is nil) and kept
// in *instr for the rest of the turn.
func (s *Service) step(ctx context.Context, st *sessionState, id string, instr **turnInstructions) stepOutcome {
	// The files are read, and the note about their changes made, before
	// the waiting messages are delivered, so that the note joins them.
	note := ""
	var files albedo.InstructionSet
	first := *instr == nil
	if first {
		sess, err := s.store.Session(ctx, id)
		if err != nil {
			return s.failed(ctx, st, id, err)
		}
		s.warmKernel(ctx, st, sess)
		files = s.projectInstructions(ctx, sess)
		note = st.instructionsRead(files)
	}
	delivered, err := s.deliverQueued(ctx, st, id, note)
	if err != nil {
		return s.failed(ctx, st, id, err)
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return s.failed(ctx, st, id, err)
	}
	if first {
		if note == "" || delivered {
			st.instructionsNoted(files)
		}
		composed := s.composeTurnInstructions(ctx, sess, files)
		st.instructionsSent(composed.used)
		*instr = &composed
	}
	rd, err := s.readRound(ctx, sess)
	if err != nil {
		return s.failed(ctx, st, id, err)
	}
	ep, window := rd.ep, rd.win.tokens()
	items, err := s.transcript(ctx, st, id)
	if err != nil {
		return s.failed(ctx, st, id, err)
	}
	if first && sess.Compacting == albedo.CompactForced {
		s.resumeForcedCompaction(ctx, id, items, ep, window)
	}
	input, err := s.projectInput(ctx, id, items, ep)
	if err != nil {
		return s.failed(ctx, st, id, err)
	}
	req := albedo.ModelRequest{
		Endpoint:     ep,
		Instructions: (*instr).text,
		Input:        input,
		Tools:        s.toolDeclarations(),
		SessionID:    id,
	}
	if req, err = s.autoCompact(ctx, id, items, req, rd); err != nil {
		return s.failed(ctx, st, id, err)
	}
	onDelta := func(d albedo.Delta) {
		st.hub.publish(albedo.Event{Type: wire.EventDelta, Kind: string(d.Kind), Text: d.Text})
	}
	rows := s.newLedger(id, albedo.RequestTurn, ep, conversational(items), req)
	req.OnAttempt = rows.attempt
	reply, err := s.provider.Stream(ctx, req, onDelta)
	rows.finish(ctx, reply, err)
	if err != nil && ctx.Err() == nil && albedo.ContextFull(err) {
		reply, err = s.retryCompacted(ctx, id, items, req, err, onDelta, window)
	}
	// A long transcript is not held while the model answers: the request
	// has what it needs, and the next step reads the transcript again.
	st.cache.forgetIfBig()
	if ctx.Err() != nil {
		return stepCancelled
	}
	if err != nil {
		s.keepPartial(ctx, st, id, ep, reply.Items)
		return s.failed(ctx, st, id, fmt.Errorf("ask %s (%s): %w", ep.Provider, ep.Model, err))
	}
	now := s.now()
	for i := range reply.Items {
		reply.Items[i].Timestamp = now
		if reply.Items[i].Protocol == "" {
			reply.Items[i].Protocol = ep.Protocol
		}
	}
	stored, err := s.append(ctx, st, id, reply.Items...)
	if err != nil {
		return s.failed(ctx, st, id, err)
	}
	st.hub.publish(s.usageEvent(ctx, st, sess, rd.win, reply.Usage))
	var calls []albedo.Item
	for _, it := range stored {
		if it.Kind == albedo.KindToolCall {
			calls = append(calls, it)
		}
	}
	if len(calls) == 0 {
		return stepAnswered
	}
	for _, call := range calls {
		out := s.runCall(ctx, st, sess, call)
		if _, err := s.append(context.WithoutCancel(ctx), st, id, out...); err != nil {
			return s.failed(ctx, st, id, err)
		}
		s.forgetOutput(context.WithoutCancel(ctx), id, call.Seq)
	}
	if ctx.Err() != nil {
		return stepCancelled
	}
	return stepTools
}

// keepPartial records the text, reasoning and notes that streamed before
// a reply failed, flagged partial, so that a reload still shows them. Tool
// calls of a failed reply are never kept: they would run.
func (s *Service) keepPartial(ctx context.Context, st *sessionState, id string, ep albedo.Endpoint, items []albedo.Item) {
	var keep []albedo.Item
	for _, it := range items {
		if (it.Kind != albedo.KindAssistant && it.Kind != albedo.KindReasoning && it.Kind != albedo.KindNote) || it.Text == "" {
			continue
		}
		it.Flags |= albedo.FlagPartial
		it.Timestamp = s.now()
		if it.Protocol == "" {
			it.Protocol = ep.Protocol
		}
		keep = append(keep, it)
	}
	if _, err := s.append(context.WithoutCancel(ctx), st, id, keep...); err != nil {
		s.log.Error("record partial reply", "session", id, "err", err)
	}
}

// append commits items to a session's transcript and publishes their
// events.
func (s *Service) append(ctx context.Context, st *sessionState, id string, items ...albedo.Item) ([]albedo.Item, error) {
	if len(items) == 0 {
		return nil, nil
	}
	done, err := s.store.Commit(ctx, albedo.Commit{SessionID: id, Items: items})
	if err != nil {
		return nil, fmt.Errorf("record transcript of session %s: %w", id, err)
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, id, done.Items)
	return done.Items, nil
}

// publishItems sends the events of newly stored items to subscribers.
func (s *Service) publishItems(ctx context.Context, st *sessionState, id string, items []albedo.Item) {
	events := make([]albedo.Event, 0, len(items))
	for _, it := range items {
		if !it.Kind.Displayed() {
			continue
		}
		code := ""
		if it.Kind == albedo.KindToolOutput {
			code = s.callCode(ctx, st, id, it)
		}
		events = append(events, albedo.EventOf(it, code))
	}
	st.hub.publish(events...)
}

// callCode finds the code of the call an output answers, looking back over
// the recent transcript.
func (s *Service) callCode(ctx context.Context, st *sessionState, id string, out albedo.Item) string {
	items, ok := st.cache.cached()
	if !ok {
		var err error
		if items, err = s.store.Items(ctx, id, max(out.Seq-64, 0), 0); err != nil {
			return ""
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == albedo.KindToolCall && items[i].CallID == out.CallID {
			return albedo.CallCode(items[i])
		}
	}
	return ""
}

// deliverQueued moves a session's waiting messages into its transcript
// and reports whether there were any. When the kernel lost globals the
// model relied on, the last of them tells the model so; a note that is not
// empty is added to the last of them too.
func (s *Service) deliverQueued(ctx context.Context, st *sessionState, id, note string) (bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	queued, err := s.store.Queued(ctx, id)
	if err != nil || len(queued) == 0 {
		return false, err
	}
	items := make([]albedo.Item, len(queued))
	ids := make([]int64, len(queued))
	for i, q := range queued {
		items[i] = q.Item()
		ids[i] = q.ID
	}
	change := albedo.Commit{SessionID: id, Items: items, Dequeue: ids}
	if note != "" {
		last := &items[len(items)-1]
		last.Notes = append(append([]string(nil), last.Notes...), note)
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return false, err
	}
	if sess.KernelUsed && !st.kernelLive {
		last := &items[len(items)-1]
		last.Notes = append(append([]string(nil), last.Notes...), albedo.KernelResetNote)
		sess.KernelUsed = false
		change.Expect = s.touch(&sess)
		change.Session = &sess
	}
	done, err := s.store.Commit(ctx, change)
	if err != nil {
		return false, fmt.Errorf("deliver queued messages of session %s: %w", id, err)
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, id, done.Items)
	return true, nil
}

// failed records a failure of the turn where people will see it.
func (s *Service) failed(ctx context.Context, st *sessionState, id string, err error) stepOutcome {
	if ctx.Err() != nil {
		return stepCancelled
	}
	s.log.Warn("turn failed", "session", id, "err", err)
	msg := albedo.ErrorMessage(err)
	if albedo.ErrorCode(err) == albedo.EInternal {
		msg = err.Error()
	}
	failure := albedo.Item{Kind: albedo.KindError, Text: msg, Timestamp: s.now()}
	if _, aerr := s.append(context.WithoutCancel(ctx), st, id, failure); aerr != nil {
		// Subscribers learn of the failure even when it cannot be stored.
		s.log.Error("record turn failure", "session", id, "err", aerr)
		st.hub.publish(albedo.EventOf(failure, ""))
	}
	return stepFailed
}

// finish ends a turn unless messages are waiting (then it returns false and
// the turn goes on), or force is set. Calls left without output get one.
func (s *Service) finish(ctx context.Context, st *sessionState, id, marker string, force bool) bool {
	ctx = context.WithoutCancel(ctx)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !force {
		if q, err := s.store.Queued(ctx, id); err == nil && len(q) > 0 {
			return false
		}
	}
	items, err := s.closingItems(ctx, st, id)
	if err != nil {
		s.log.Error("close turn", "session", id, "err", err)
	}
	items = append(items, albedo.Item{Kind: albedo.KindTurn, Text: marker, Timestamp: s.now()})
	sess, err := s.store.Session(ctx, id)
	change := albedo.Commit{SessionID: id, Items: items}
	if err == nil {
		sess.Stage, sess.Compacting = albedo.StageIdle, ""
		change.Expect = s.touch(&sess)
		change.Session = &sess
	}
	done, err := s.store.Commit(ctx, change)
	st.turn = nil
	st.busy.Store(false)
	if err != nil {
		// The turn is over all the same: the session must not look busy
		// to anyone. Its end is recorded with its next message (see
		// recordEnd); should albedo stop first, the next start resumes it.
		s.log.Error("record end of turn", "session", id, "err", err)
		// The note of why joins the end, so that the history says it too.
		lost := albedo.Item{Kind: albedo.KindError, Text: "albedo could not record the end of this turn: " + albedo.ErrorMessage(err), Timestamp: s.now()}
		st.unrecorded = append(items[:len(items)-1:len(items)-1], lost, items[len(items)-1])
		for _, it := range st.unrecorded {
			st.hub.publish(albedo.EventOf(it, ""))
		}
		st.hub.publish(statusEvent(false))
		return true
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, id, done.Items)
	st.hub.publish(statusEvent(false))
	st.cache.forgetIfBig()
	return true
}

// recordEnd stores the end of a turn that finish could not record, with
// the session idle. The caller holds st.mu.
func (s *Service) recordEnd(ctx context.Context, st *sessionState, id string) error {
	if len(st.unrecorded) == 0 {
		return nil
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return err
	}
	sess.Stage, sess.Compacting = albedo.StageIdle, ""
	s.touch(&sess)
	done, err := s.store.Commit(ctx, albedo.Commit{Session: &sess, Items: st.unrecorded})
	if err != nil {
		return fmt.Errorf("record the end of the last turn of session %s: %w", id, err)
	}
	st.unrecorded = nil
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, id, done.Items)
	return nil
}

// abandon forgets a turn cancelled by shutdown without writing anything:
// it stays running in the store and resumes at the next start.
func (s *Service) abandon(st *sessionState) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.turn = nil
	st.busy.Store(false)
}

// closingLookback is how many of the last items closingItems reads when
// the transcript is not in memory.
const closingLookback = 1024

// closingItems returns interrupted outputs for the calls at the end of the
// transcript that have none.
func (s *Service) closingItems(ctx context.Context, st *sessionState, id string) ([]albedo.Item, error) {
	items, ok := st.cache.cached()
	if !ok {
		// The calls left without output are those of the last reply, at
		// the end of the transcript.
		var err error
		if items, err = s.store.ItemPage(ctx, id, albedo.ItemQuery{Limit: closingLookback, Newest: true, NoResults: true}); err != nil {
			return nil, err
		}
	}
	var out []albedo.Item
	for _, call := range unansweredCalls(items) {
		res := albedo.CellResult{Status: albedo.CellInterrupted, Error: "the turn was interrupted before this cell ran"}
		out = append(out, outputItem(call, res, s.now()))
	}
	return out, nil
}

// unansweredCalls returns the tool calls that have no output, in order.
func unansweredCalls(items []albedo.Item) []albedo.Item {
	answered := make(map[string]bool)
	for _, it := range items {
		if it.Kind == albedo.KindToolOutput {
			answered[it.CallID] = true
		}
	}
	var calls []albedo.Item
	for _, it := range items {
		if it.Kind == albedo.KindToolCall && !answered[it.CallID] {
			calls = append(calls, it)
		}
	}
	return calls
}

// outputItem makes the transcript item of a cell's result.
func outputItem(call albedo.Item, res albedo.CellResult, now int64) albedo.Item {
	return albedo.Item{
		Kind:      albedo.KindToolOutput,
		CallID:    call.CallID,
		ToolName:  call.ToolName,
		Text:      string(albedo.MustJSON(res)),
		Result:    &res,
		Timestamp: now,
	}
}

// outputItems makes the transcript items of a cell's result: its output,
// then one KindToolImage item for each image it showed.
func outputItems(call albedo.Item, res albedo.CellResult, now int64) []albedo.Item {
	shown := res.Shown
	res.Shown = nil
	items := []albedo.Item{outputItem(call, res, now)}
	for i, img := range shown {
		items = append(items, albedo.Item{
			Kind:      albedo.KindToolImage,
			CallID:    call.CallID,
			ToolName:  call.ToolName,
			Text:      fmt.Sprintf("image %d of %d shown by the %s call %s", i+1, len(shown), call.ToolName, call.CallID),
			Image:     img,
			Timestamp: now,
		})
	}
	return items
}

// pythonArgs are the arguments of the python tool.
type pythonArgs struct {
	Code      *string `json:"code"`
	TimeoutMS int64   `json:"timeout_ms"`
}

// maxCellTimeout caps the timeout a model may ask for.
const maxCellTimeout = 24 * time.Hour

// runPython runs a call of the python tool and returns its output item,
// followed by the images the cell showed. What the cell prints reaches
// subscribers as output events and the spool as it comes.
func (s *Service) runPython(ctx context.Context, st *sessionState, sess albedo.Session, call albedo.Item) []albedo.Item {
	now := func() int64 { return s.now() }
	var args pythonArgs
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args.Code == nil {
		return []albedo.Item{outputItem(call, albedo.CellResult{Status: albedo.CellError, Error: `arguments must be a JSON object {"code": string, "timeout_ms": integer}`}, now())}
	}
	timeout := s.cellTimeout
	if args.TimeoutMS > 0 {
		timeout = min(time.Duration(args.TimeoutMS)*time.Millisecond, maxCellTimeout)
	}
	began := s.clock.Now()
	res, err := s.kernel.Run(ctx, albedo.Cell{
		SessionID: sess.ID, Workspace: sess.Workspace, Code: *args.Code, Timeout: timeout,
		Call: call.Seq, Output: s.liveOutput(st, sess.ID, call.Seq),
		HostCalls: s.hostCallList, Host: s.cellHost(sess.ID),
	})
	if err != nil {
		res = albedo.CellResult{Status: albedo.CellError, Error: err.Error()}
	}
	if res.DurationMS == 0 {
		res.DurationMS = s.clock.Now().Sub(began).Milliseconds()
	}
	if res.Fresh && s.kernelWasLive(st) {
		// The kernel went away since the last cell without albedo stopping
		// it: the model has not been told yet that its globals are gone.
		// (A kernel albedo stopped, or one lost with a restart, was
		// reported with the next message: see deliverQueued.)
		res.Notes = append(res.Notes, albedo.KernelResetNote)
	}
	s.markKernelUsed(ctx, st, sess.ID)
	return outputItems(call, res, now())
}

// liveOutput returns the sink of a running cell's output: each piece goes
// to the spool and to the session's subscribers as an output event.
func (s *Service) liveOutput(st *sessionState, id string, call int64) func(string) {
	return func(text string) {
		if err := s.spool.Append(context.Background(), id, call, text); err != nil {
			s.log.Warn("spool cell output", "session", id, "call", call, "err", err)
		}
		st.hub.publish(albedo.Event{Type: wire.EventOutput, Call: call, Text: text})
	}
}

// forgetOutput drops the spooled output of a cell whose output is
// recorded.
func (s *Service) forgetOutput(ctx context.Context, id string, call int64) {
	if err := s.spool.Remove(ctx, id, call); err != nil {
		s.log.Warn("remove spooled cell output", "session", id, "call", call, "err", err)
	}
}

// kernelWasLive says whether albedo believed the session's kernel held the
// globals of earlier cells.
func (s *Service) kernelWasLive(st *sessionState) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.kernelLive
}

// markKernelUsed records that the session's kernel now holds state the
// model may rely on. A cell cut short by an interrupt may have set globals
// too, so this is recorded even once ctx is cancelled.
func (s *Service) markKernelUsed(ctx context.Context, st *sessionState, id string) {
	ctx = context.WithoutCancel(ctx)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.kernelLive, st.kernelWarm = true, false
	st.lastCell = s.clock.Now()
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		s.log.Error("record kernel use", "session", id, "err", err)
		return
	}
	if sess.KernelUsed {
		return
	}
	if _, err := s.updateLocked(ctx, id, func(x *albedo.Session) error {
		x.KernelUsed = true
		return nil
	}); err != nil {
		s.log.Error("record kernel use", "session", id, "err", err)
	}
}
