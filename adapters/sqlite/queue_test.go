package sqlite

import (
	"context"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestQueue(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 2)
	ctx := context.Background()
	msgs := []albedo.Queued{
		{Text: "first", Timestamp: 10},
		{Text: "with image", Notes: []string{"a note"}, Image: &albedo.Image{
			MimeType: "image/jpeg", Width: 4, Height: 4, Bytes: 3, Data: []byte{1, 2, 3},
		}, Timestamp: 11},
		{Text: "from paperclips", Source: "paperclips", Timestamp: 12},
	}
	done := mustCommit(t, s, albedo.Commit{SessionID: "s0", Enqueue: msgs})
	other := mustCommit(t, s, albedo.Commit{SessionID: "s1", Enqueue: msgs[:1]})
	for i, q := range done.Enqueued {
		if q.ID == 0 || q.SessionID != "s0" || (i > 0 && q.ID <= done.Enqueued[i-1].ID) {
			t.Fatalf("enqueued %d: %+v; want increasing ids in s0", i, q)
		}
		want := msgs[i]
		want.ID, want.SessionID = q.ID, "s0"
		if !reflect.DeepEqual(q, want) {
			t.Errorf("enqueued %d\n got %+v\nwant %+v", i, q, want)
		}
	}
	got, err := s.Queued(ctx, "s0")
	if err != nil || !reflect.DeepEqual(got, done.Enqueued) {
		t.Fatalf("Queued = %+v, %v\nwant %+v", got, err, done.Enqueued)
	}

	// Dequeue takes only the commit's session's messages.
	mustCommit(t, s, albedo.Commit{
		SessionID: "s0",
		Dequeue:   []int64{done.Enqueued[0].ID, done.Enqueued[2].ID, other.Enqueued[0].ID},
	})
	got, err = s.Queued(ctx, "s0")
	if err != nil || !reflect.DeepEqual(got, done.Enqueued[1:2]) {
		t.Errorf("Queued after dequeue = %+v, %v\nwant %+v", got, err, done.Enqueued[1:2])
	}
	got, err = s.Queued(ctx, "s1")
	if err != nil || !reflect.DeepEqual(got, other.Enqueued) {
		t.Errorf("other session's queue = %+v, %v\nwant %+v", got, err, other.Enqueued)
	}
}
