package engine_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// onceFailingStore fails the first commit after fail is set with err.
type onceFailingStore struct {
	albedo.Store
	fail atomic.Bool
	err  error
}

// Commit fails once when asked to.
func (s *onceFailingStore) Commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	if s.fail.CompareAndSwap(true, false) {
		return albedo.Committed{}, s.err
	}
	return s.Store.Commit(ctx, change)
}

// syncBuffer is a log sink safe for the turn's goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// What a failed turn shows people: albedo's own failures (a store's
// error albedo does not know, a bug) read "internal error", with the
// detail in the log; a provider's failure keeps its words.
func TestAFailedTurnShowsInternalErrorsPlainly(t *testing.T) {
	tests := []struct {
		name     string
		storeErr error
		reply    fakes.Reply
		shown    string
		logged   string
	}{
		{"a store's unknown error", errors.New("sector 7 unreadable"), fakes.Text("answer"), "internal error", "sector 7 unreadable"},
		{"a store's known error", albedo.Errorf(albedo.EStoreUnavailable, "the disk holding ALBEDO_HOME is full"), fakes.Text("answer"),
			"the disk holding ALBEDO_HOME is full", "the disk holding ALBEDO_HOME is full"},
		{"a provider's plain error", nil, fakes.Fail(errors.New("connection reset by peer")), "connection reset by peer", "connection reset by peer"},
		{"a provider's known error", nil, fakes.Fail(albedo.Errorf(albedo.EUnauthorized, "the API key was refused")), "the API key was refused", "the API key was refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := &onceFailingStore{err: tc.storeErr}
			var r *rig
			r = newRig(t, func(albedo.ModelRequest) fakes.Reply {
				store.fail.Store(tc.storeErr != nil) // the reply's commit fails
				return tc.reply
			})
			store.Store = r.store
			var log syncBuffer
			r.tune = func(o *engine.Options) {
				o.Store = store
				o.Logger = slog.New(slog.NewTextHandler(&log, nil))
			}
			r.svc = r.newService()
			sess := r.session("")
			r.turn(sess.ID, "hello")
			var shown []string
			for _, it := range r.history(sess.ID) {
				if it.Kind == albedo.KindError {
					shown = append(shown, it.Text)
				}
			}
			if len(shown) != 1 || !strings.Contains(shown[0], tc.shown) {
				t.Errorf("error items = %q, want one saying %q", shown, tc.shown)
			}
			if tc.shown == "internal error" && shown[0] != "internal error" {
				t.Errorf("error item = %q, want only %q", shown[0], "internal error")
			}
			if !strings.Contains(log.String(), tc.logged) {
				t.Errorf("log = %q, want the detail %q", log.String(), tc.logged)
			}
		})
	}
}
