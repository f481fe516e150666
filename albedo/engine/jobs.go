package engine

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// JobSource marks the message that tells the model a background job of its
// kernel ended.
const JobSource = "job"

// JobMessage is the text of that message.
func JobMessage(end albedo.JobEnd) string {
	return fmt.Sprintf("background job %d finished (exit %d, %.1f s): jobs()[%d].tail() shows its last lines",
		end.ID, end.ExitCode, end.Duration.Seconds(), end.ID)
}

// JobFinished wakes a session whose kernel's background job ended while
// nothing read its end: the session gets a message with source JobSource,
// which starts a turn when it is idle and joins the next model request when
// it is busy. The kernel calls it once per such job.
func (s *Service) JobFinished(ctx context.Context, id string, end albedo.JobEnd) error {
	return s.inRow(ctx, id, func(st *sessionState) error {
		sess, err := s.store.Session(ctx, id)
		if err != nil {
			return err
		}
		q := albedo.Queued{SessionID: id, Text: JobMessage(end), Source: JobSource, Timestamp: s.now()}
		if _, err := s.route(ctx, st, id, sess, q, nil); err != nil {
			return fmt.Errorf("queue the end of job %d for session %s: %w", end.ID, id, err)
		}
		return nil
	})
}
