package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

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
func (s *Service) runPython(ctx context.Context, t *turn, call albedo.Item) []albedo.Item {
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
		SessionID: t.id, Workspace: t.sess.Workspace, Code: *args.Code, Timeout: timeout,
		Call: call.Seq, Output: s.liveOutput(t.st, t.id, call.Seq),
		HostCalls: s.hostCallList, Host: s.cellHost(t.id),
	})
	if err != nil {
		res = albedo.CellResult{Status: albedo.CellError, Error: err.Error()}
	}
	if res.DurationMS == 0 {
		res.DurationMS = s.clock.Now().Sub(began).Milliseconds()
	}
	if res.Fresh && t.st.isKernelLive() {
		// The kernel went away since the last cell without albedo stopping
		// it: the model has not been told yet that its globals are gone.
		// (A kernel albedo stopped, or one lost with a restart, was
		// reported with the next message: see deliver.)
		res.Notes = append(res.Notes, albedo.KernelResetNote)
	}
	t.markKernelUsed(ctx)
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

// flushOutput writes what the session's cells printed where the next
// process to run the session reads it, as a turn stopped by shutdown
// gives the session up. (A turn whose lease was lost writes nothing: the
// session may be another's already.)
func (s *Service) flushOutput(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := s.spool.Flush(ctx, id); err != nil {
		s.log.Warn("write spooled cell output", "session", id, "err", err)
	}
}

// flushTimeout bounds the wait for a spool's last write of a session.
const flushTimeout = 5 * time.Second

// isKernelLive says whether albedo believes the session's kernel holds the
// globals of earlier cells.
func (st *sessionState) isKernelLive() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.kernelLive
}

// markKernelUsed records that the session's kernel now holds state the
// model may rely on. A cell cut short by an interrupt may have set globals
// too, so this is recorded even once ctx is cancelled. The row is written
// only when the turn's copy of it says the kernel was not used yet.
func (t *turn) markKernelUsed(ctx context.Context) {
	st := t.st
	st.mu.Lock()
	st.kernelLive, st.kernelWarm = true, false
	st.lastCell = t.s.clock.Now()
	st.mu.Unlock()
	if t.sess.KernelUsed {
		return
	}
	if _, err := t.writeRow(context.WithoutCancel(ctx), func(x *albedo.Session) { x.KernelUsed = true }, albedo.Commit{}); err != nil {
		t.s.log.Error("record kernel use", "session", t.id, "err", err)
	}
}
