package bench

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// BenchmarkLiveToOtherStream measures, for two daemons sharing one
// PostgreSQL database, the delay from one's live event (a delta, as its
// turn streams it) to that event on a stream of the other: the batch's
// wait for its tick (every 100 ms), its insert and NOTIFY, the other's
// read of the batch and the event's delivery. It reports the median and
// 99th percentile over the b.N events (run it with -benchtime=1000x),
// each published some way (0 to 99 ms) after the last was heard, so that
// they fall anywhere between two ticks. It
// needs ALBEDO_TEST_POSTGRES_URL.
func BenchmarkLiveToOtherStream(b *testing.B) {
	ctx := context.Background()
	url := pgtest.NewDatabase(b)
	open := func() *postgres.Store {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	owner, other := open(), open()
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: other, Live: other.Live(postgres.LiveOptions{}),
		Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
	defer svc.Close(ctx)
	sess, err := svc.CreateSession(ctx, b.TempDir(), "")
	if err != nil {
		b.Fatal(err)
	}
	sub, err := svc.Subscribe(ctx, sess.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	live := owner.Live(postgres.LiveOptions{})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); live.Run(runCtx, func(albedo.LiveEvent) {}) }()
	defer func() { stop(); <-done }()
	// The first event heard tells when the other daemon listens.
	for heard := false; !heard; {
		live.Publish(sess.ID, 0, albedo.Event{Type: "delta", Kind: "text", Text: "hello"})
		select {
		case <-sub.Events:
			heard = true
		case <-time.After(300 * time.Millisecond):
		}
	}
	for len(sub.Events) > 0 {
		<-sub.Events
	}
	delays := make([]time.Duration, 0, b.N)
	i := 0
	for b.Loop() {
		i++
		want := strconv.Itoa(i)
		start := time.Now()
		live.Publish(sess.ID, 0, albedo.Event{Type: "delta", Kind: "text", Text: want})
		for ev := range sub.Events {
			if ev.Text == want {
				break
			}
		}
		delays = append(delays, time.Since(start))
		// The next event falls anywhere in the 100 ms between two ticks.
		time.Sleep(time.Duration(i*37%100) * time.Millisecond)
	}
	slices.Sort(delays)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(delays[len(delays)/2]), "ms-median")
	b.ReportMetric(ms(delays[len(delays)*99/100]), "ms-p99")
}

// streamingProvider is instantProvider streaming each reply as deltas
// (20 per reply) first, as a model does.
type streamingProvider struct{ instantProvider }

func (p *streamingProvider) Stream(ctx context.Context, req albedo.ModelRequest, delta func(albedo.Delta)) (albedo.ModelReply, error) {
	for range 20 {
		delta(albedo.Delta{Kind: albedo.DeltaToolCall, Text: `{"code": "1"} `})
	}
	return p.instantProvider.Stream(ctx, req, delta)
}

// BenchmarkSharedToolTurn measures what a tool round costs a daemon
// sharing a PostgreSQL store (its turns leased, its commits notified),
// with no stream open: without and with its live events sent to the
// other daemons (20 deltas and a status per round, batched every 100 ms);
// and with each cell printing a line, without a spool and with the
// database's: a cell whose result is stored before the spool's next batch
// (every 100 ms), and one whose output a batch wrote (a cell that ran
// past a batch: the spool's write, then its removal with the next).
func BenchmarkSharedToolTurn(b *testing.B) {
	cases := []struct {
		name     string
		live     bool
		printing bool
		spool    bool
		written  bool
	}{
		{name: "leased"},
		{name: "leased-live", live: true},
		{name: "leased-printing", printing: true},
		{name: "leased-printing-spooled", printing: true, spool: true},
		{name: "leased-printing-spooled-written", printing: true, spool: true, written: true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			s, err := postgres.Open(ctx, pgtest.NewDatabase(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			opts := engine.Options{Workspaces: localfs.Workspaces{}, Store: s, Changes: s,
				Leases:   s.Leases(postgres.NewOwner(), "bench", time.Minute),
				Provider: &streamingProvider{}, Kernel: instantKernel{}, Config: config()}
			if c.live {
				opts.Live = s.Live(postgres.LiveOptions{})
			}
			if c.printing {
				k := printingKernel{}
				if c.spool {
					spool := s.Spool(postgres.SpoolOptions{})
					defer spool.Close(ctx)
					opts.Spool = spool
					if c.written {
						k.spool = spool
					}
				}
				opts.Kernel = k
			}
			svc := engine.New(opts)
			defer svc.Close(ctx)
			workspace := b.TempDir()
			for b.Loop() {
				sess, err := svc.CreateSession(ctx, workspace, "")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := svc.Send(ctx, sess.ID, albedo.Message{Text: "go"}); err != nil {
					b.Fatal(err)
				}
				if err := svc.Wait(ctx, sess.ID); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N*toolRounds), "ms/tool-turn")
		})
	}
}

// printingKernel is an instant kernel whose cells print a line; given a
// spool, it writes the line to the database as a batch would for a cell
// that ran past one.
type printingKernel struct {
	instantKernel
	spool albedo.OutputSpool
}

func (k printingKernel) Run(ctx context.Context, cell albedo.Cell) (albedo.CellResult, error) {
	cell.Output("hello\n")
	if k.spool != nil {
		if err := k.spool.Flush(ctx, cell.SessionID); err != nil {
			return albedo.CellResult{}, err
		}
	}
	return albedo.CellResult{Status: albedo.CellOK, Output: "hello\n", Value: "1"}, nil
}
