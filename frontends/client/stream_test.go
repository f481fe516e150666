package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/home"
)

// streamHandler serves a stream: the snapshot, then each message, then
// either ends or waits for the client to leave.
func streamHandler(snapshot string, messages []string, hold bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "data: %s\n\n", snapshot)
		for _, m := range messages {
			fmt.Fprintf(w, ": ping\n\ndata: %s\n\n", m)
		}
		w.(http.Flusher).Flush()
		if hold {
			<-r.Context().Done()
		}
	}
}

func TestSubscribe(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		c, f := newFakeOf(t, client, streamHandler(
			`{"events":[{"type":"user","seq":1,"text":"hi","timestamp":5}]}`,
			[]string{
				`{"events":[{"type":"status","running":true}]}`,
				`{"events":[{"type":"delta","kind":"text","text":"he"},{"type":"message","seq":2,"text":"hello"}]}`,
			}, false))
		s, err := c.Subscribe(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if want := []wire.Event{{Type: "user", Seq: 1, Text: "hi", Timestamp: 5}}; !reflect.DeepEqual(s.Snapshot, want) {
			t.Errorf("snapshot = %+v", s.Snapshot)
		}
		if got := f.requests()[0].Path; got != "/sessions/s1/stream" {
			t.Errorf("path = %s", got)
		}
		var got []string
		var last error
		for ev, err := range s.Events() {
			if err != nil {
				last = err
				break
			}
			got = append(got, ev.Type)
		}
		if want := []string{"status", "delta", "message"}; !reflect.DeepEqual(got, want) {
			t.Errorf("events = %q, want %q", got, want)
		}
		if !errors.Is(last, wire.ErrStreamEnded) {
			t.Errorf("end = %v, want ErrStreamEnded", last)
		}
	})
}

func TestSubscribeEndsWithContext(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		c, _ := newFakeOf(t, client, streamHandler(`{"events":[]}`, nil, true))
		ctx, cancel := context.WithCancel(context.Background())
		s, err := c.Subscribe(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Snapshot == nil || len(s.Snapshot) != 0 {
			t.Errorf("snapshot = %#v, want empty", s.Snapshot)
		}
		cancel()
		for _, err := range s.Events() {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("end = %v, want context.Canceled", err)
			}
			break
		}
	})
}

func TestSubscribeBreakStops(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		c, _ := newFakeOf(t, client, streamHandler(`{"events":[]}`, []string{`{"events":[{"type":"status"},{"type":"status"}]}`}, true))
		s, err := c.Subscribe(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for range s.Events() {
			n++
			break
		}
		if n != 1 {
			t.Errorf("yielded %d events after break", n)
		}
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
}

func TestSubscribeRefused(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		c, _ := newFakeOf(t, client, func(w http.ResponseWriter, r *http.Request) {
			reply(w, http.StatusNotFound, map[string]any{"error": "no session nope", "code": "not_found"})
		})
		_, err := c.Subscribe(context.Background(), "nope")
		if wire.ErrorCode(err) != "not_found" {
			t.Errorf("err = %v, want not_found", err)
		}
	})
}

func TestWatchResumesAfterOverflow(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		var lastIDs []string
		c, _ := newFakeOf(t, client, func(w http.ResponseWriter, r *http.Request) {
			lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if len(lastIDs) == 1 {
				fmt.Fprint(w, "id: 1\ndata: {\"events\":[{\"type\":\"user\",\"seq\":1}]}\n\n")
				fmt.Fprint(w, "id: 2\ndata: {\"events\":[{\"type\":\"message\",\"seq\":2}]}\n\n")
				fmt.Fprint(w, "data: {\"events\":[{\"type\":\"overflow\"}]}\n\n")
				return
			}
			fmt.Fprint(w, "id: 3\ndata: {\"events\":[{\"type\":\"turn\",\"seq\":3}]}\n\n")
		})
		var seqs []int64
		var end error
		for ev, err := range c.Watch(context.Background(), "s1") {
			if err != nil {
				end = err
				break
			}
			seqs = append(seqs, ev.Seq)
		}
		if !reflect.DeepEqual(seqs, []int64{1, 2, 3}) || !errors.Is(end, wire.ErrStreamEnded) {
			t.Errorf("seqs = %v, end = %v; want 1 2 3 then the end", seqs, end)
		}
		if !reflect.DeepEqual(lastIDs, []string{"", "2"}) {
			t.Errorf("Last-Event-ID of each connection = %q, want none, then 2", lastIDs)
		}
	})
}

func TestSubscribeFromTailHasBefore(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		c, f := newFakeOf(t, client, streamHandler(`{"events":[{"type":"turn","seq":9}],"before":9}`, nil, false))
		s, err := c.SubscribeFrom(context.Background(), "s1", SubscribeOptions{Tail: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := f.requests()[0]; got.Path != "/sessions/s1/stream" || got.Query != "tail=1" {
			t.Errorf("request = %+v, want the stream with tail=1", got)
		}
		if s.Before != 9 || s.LastEventID() != 9 {
			t.Errorf("before, last = %d, %d; want 9, 9", s.Before, s.LastEventID())
		}
	})
}
