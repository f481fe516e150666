package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// RestartNote is the text of that message when no cell was running.
const RestartNote = "albedo restarted while this turn was running."

// RestartCellsNote is its text when python cells, and no call of another
// tool, were running and were cut short; a call of another tool is named
// in it (see restartNote).
const RestartCellsNote = RestartNote + " A python cell that was running then was stopped and not run again: check its effects before repeating it."

// RestartCellNote is the error of a cell that was running when albedo
// stopped; its output ends with it too.
const RestartCellNote = "albedo restarted while this cell was running; it was not run again"

// RestartCallNote is the error of a call of another tool (an MCP
// server's, a program's) that was running when albedo stopped.
const RestartCallNote = "albedo restarted while this tool call was running; it was not run again: check its effects before repeating it"

// interruptedOutput is the output of a cell cut short by a restart: what
// it had printed, then RestartCellNote.
func interruptedOutput(printed string) string {
	if printed == "" {
		return ""
	}
	if !strings.HasSuffix(printed, "\n") {
		printed += "\n"
	}
	return printed + RestartCellNote
}

// Recover resumes every turn that was running when albedo last stopped,
// on each session's own provider and model. A cell that was in flight is
// never run again: its call gets an output saying so, and the model is told
// of the restart and of its lost kernel in one user message. It returns how
// many turns it resumed; a turn that a message resumed first (see Send) is
// not resumed twice.
func (s *Service) Recover(ctx context.Context) (int, error) {
	sessions, err := s.store.Sessions(ctx)
	if err != nil {
		return 0, fmt.Errorf("list sessions to recover: %w", err)
	}
	resumed := 0
	for _, sess := range sessions {
		if sess.Stage != albedo.StageRunning {
			continue
		}
		ok, err := s.resume(ctx, sess.ID)
		if err != nil {
			s.log.Error("resume interrupted turn", "session", sess.ID, "err", err)
			continue
		}
		if ok {
			resumed++
		}
	}
	return resumed, nil
}

// resume resumes a session's interrupted turn and reports whether it did.
// The listing Recover works from may be old by now: a session that runs a
// turn again, or no longer needs one, is left alone, and so is one whose
// lease another process holds.
func (s *Service) resume(ctx context.Context, id string) (bool, error) {
	st := s.state(id)
	st.row.Lock()
	defer st.row.Unlock()
	if st.running() != nil {
		return false, nil
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return false, err
	}
	if sess.Stage != albedo.StageRunning {
		return false, nil
	}
	if s.isClosed() {
		return false, albedo.Errorf(albedo.EConflict, "albedo is shutting down")
	}
	// Where other daemons share the store, one of them may run the turn:
	// it is resumed only under a lease taken now.
	if owned, err := s.own(ctx, st, id); err != nil || !owned {
		return false, err
	}
	if _, err := s.resumeLocked(ctx, st, sess); err != nil {
		s.release(ctx, id)
		return false, err
	}
	return true, nil
}

// resumeLocked records that albedo restarted in the middle of sess's turn
// and starts that turn again; a /compact albedo died in is started again
// instead, with nothing recorded. The caller holds st.row, no turn runs, and
// sess is the stored session, whose stage is running, and this process
// holds its lease (see own). It returns the session as stored.
func (s *Service) resumeLocked(ctx context.Context, st *sessionState, sess albedo.Session) (albedo.Session, error) {
	id := sess.ID
	if sess.Compacting == albedo.CompactManual {
		// A /compact, not a turn: nothing ran that the model must hear of.
		s.startRun(st, func(ctx context.Context, _ *run) { s.runCompaction(ctx, st, id) })
		return sess, nil
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		return albedo.Session{}, err
	}
	now := s.now()
	var add []albedo.Item
	calls := unansweredCalls(items)
	for _, call := range calls {
		printed, err := s.spool.Read(ctx, id, call.Seq)
		if err != nil {
			s.log.Warn("read spooled cell output", "session", id, "call", call.Seq, "err", err)
		}
		res := albedo.CellResult{Status: albedo.CellInterrupted, Output: interruptedOutput(printed), Error: RestartCellNote}
		if call.ToolName != albedo.PythonTool().Name {
			res = albedo.CellResult{Status: albedo.CellInterrupted, Error: RestartCallNote}
		}
		add = append(add, outputItem(call, res, now))
	}
	queued, err := s.store.Queued(ctx, id)
	if err != nil {
		return albedo.Session{}, err
	}
	var ids []int64
	for _, q := range queued {
		add = append(add, q.Item())
		ids = append(ids, q.ID)
	}
	add = append(add, albedo.Item{Kind: albedo.KindUser, Source: albedo.RestartSource, Text: s.restartNote(calls), Notes: []string{albedo.KernelResetNote}, Timestamp: now})
	sess.KernelUsed = false
	expect := s.touch(&sess)
	done, err := s.store.Commit(ctx, albedo.Commit{Session: &sess, Expect: expect, Items: add, Dequeue: ids})
	if err != nil {
		return albedo.Session{}, fmt.Errorf("record restart of session %s: %w", id, err)
	}
	st.cache.remember(done.Items)
	s.publishItems(ctx, st, id, done.Items)
	for _, call := range calls {
		s.forgetOutput(ctx, id, call.Seq)
	}
	s.startTurn(st, sess)
	return sess, nil
}
