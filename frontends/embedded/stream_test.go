package embedded_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

func openFake(t *testing.T, provider *fakes.Provider) *embedded.Albedo {
	t.Helper()
	config := fakes.NewConfig("local", albedo.ProviderConfig{Name: "local", Model: "m", Protocol: albedo.ProtocolChatCompletions})
	return mustOpen(t, embedded.Options{Store: memstore.New(), Provider: provider, Kernel: fakes.NewKernel(), Config: config})
}

// TestWatch checks that Watch yields the snapshot, then live events, and
// ends with the reason it ended.
func TestWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := openFake(t, script(fakes.Text("first"), fakes.Text("second")))
	s, err := a.CreateSession(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, a, s.ID, "one")

	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var got []string
	var end error
	for ev, err := range a.Watch(wctx, s.ID) {
		if err != nil {
			end = err
			break
		}
		if !ev.Durable() {
			continue
		}
		got = append(got, ev.Type+":"+ev.Text+ev.Status)
		switch len(got) {
		case 3: // the snapshot is in: start a live turn
			if _, err := a.Send(ctx, s.ID, "two", nil); err != nil {
				t.Fatal(err)
			}
		case 6:
			stop()
		}
	}
	want := []string{"user:one", "message:first", "turn:finished", "user:two", "message:second", "turn:finished"}
	if len(got) != len(want) {
		t.Fatalf("events = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %q, want %q", i, got[i], want[i])
		}
	}
	if !errors.Is(end, context.Canceled) {
		t.Errorf("end = %v, want context.Canceled", end)
	}
}

// TestStreamEnds checks how streams end: by Close, by the end of albedo,
// and for an unknown session before they begin.
func TestStreamEnds(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		end  func(a *embedded.Albedo, s *embedded.Stream)
		want error
	}{
		{"closed", func(_ *embedded.Albedo, s *embedded.Stream) { s.Close() }, context.Canceled},
		{"albedo closed", func(a *embedded.Albedo, _ *embedded.Stream) { a.Close() }, wire.ErrStreamEnded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openFake(t, script())
			sess, err := a.CreateSession(ctx, t.TempDir(), "")
			if err != nil {
				t.Fatal(err)
			}
			s, err := a.Subscribe(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if len(s.Snapshot) != 0 || s.Snapshot == nil {
				t.Errorf("snapshot = %#v, want empty", s.Snapshot)
			}
			tt.end(a, s)
			n := 0
			for _, err := range s.Events() {
				n++
				if !errors.Is(err, tt.want) {
					t.Errorf("end = %v, want %v", err, tt.want)
				}
			}
			if n != 1 {
				t.Errorf("yielded %d values, want the one error", n)
			}
		})
	}
	t.Run("unknown session", func(t *testing.T) {
		a := openFake(t, script())
		for _, err := range a.Watch(ctx, "nope") {
			if wire.ErrorCode(err) != albedo.ENotFound {
				t.Errorf("err = %v, want not_found", err)
			}
		}
	})
}

// TestInterrupt checks that Interrupt ends a running turn and Wait sees it.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := openFake(t, script(fakes.Hang()))
	s, err := a.CreateSession(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, s.ID, "hang", nil); err != nil {
		t.Fatal(err)
	}
	if queued, err := a.Send(ctx, s.ID, "later", nil); err != nil || !queued {
		t.Errorf("second send: queued %v, err %v", queued, err)
	}
	if running, err := a.Status(ctx, s.ID); err != nil || !running {
		t.Errorf("status: running %v, err %v", running, err)
	}
	if err := a.Interrupt(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	d, err := a.Session(ctx, s.ID, 1)
	if err != nil || d.Running || len(d.Events) != 1 || d.Events[0].Status != wire.TurnInterrupted {
		t.Errorf("after interrupt: %+v (%v)", d, err)
	}
}
