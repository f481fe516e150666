package albedo

import (
	"context"
	"fmt"
)

// RestartSource marks the user message that tells the model albedo
// restarted in the middle of its turn.
const RestartSource = "daemon restart"

// RestartNote is the text of that message.
const RestartNote = "albedo restarted while this turn was running. A python cell that was running then was stopped and not run again: check its effects before repeating it."

// Recover resumes every turn that was running when albedo last stopped,
// on each session's own provider and model. A cell that was in flight is
// never run again: its call gets an output saying so, and the model is told
// of the restart and of its lost kernel in one user message.
func (s *Service) Recover(ctx context.Context) (int, error) {
	sessions, err := s.store.Sessions(ctx)
	if err != nil {
		return 0, fmt.Errorf("list sessions to recover: %w", err)
	}
	resumed := 0
	for _, sess := range sessions {
		if sess.Stage != StageRunning {
			continue
		}
		if err := s.resume(ctx, sess.ID); err != nil {
			s.log.Error("resume interrupted turn", "session", sess.ID, "err", err)
			continue
		}
		resumed++
	}
	return resumed, nil
}

func (s *Service) resume(ctx context.Context, id string) error {
	st := s.state(id)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.turn != nil {
		return nil
	}
	items, err := s.store.Items(ctx, id, 0, 0)
	if err != nil {
		return err
	}
	now := s.now()
	var add []Item
	for _, call := range unansweredCalls(items) {
		res := CellResult{Status: CellInterrupted, Error: "albedo restarted while this cell was running; it was not run again"}
		add = append(add, outputItem(call, res, now))
	}
	queued, err := s.store.Queued(ctx, id)
	if err != nil {
		return err
	}
	var ids []int64
	for _, q := range queued {
		add = append(add, Item{Kind: KindUser, Text: q.Text, Source: q.Source, Notes: q.Notes, Image: q.Image, Timestamp: q.Timestamp})
		ids = append(ids, q.ID)
	}
	add = append(add, Item{Kind: KindUser, Source: RestartSource, Text: RestartNote, Notes: []string{KernelResetNote}, Timestamp: now})
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return err
	}
	sess.KernelUsed = false
	s.touch(&sess)
	done, err := s.store.Commit(ctx, Commit{Session: &sess, Items: add, Dequeue: ids})
	if err != nil {
		return fmt.Errorf("record restart of session %s: %w", id, err)
	}
	st.cache.remember(done.Items)
	s.startTurn(st, id)
	return nil
}
