package engine_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// crashedCall is the call a crashed session was running when albedo died.
const crashedCall = "call-crash"

// seedCrashed stores a session that was running a cell when albedo died:
// its stage is running and its last call has no output.
func (r *rig) seedCrashed(id string) albedo.Session {
	r.t.Helper()
	now := time.UnixMilli(1_700_000_000_000)
	sess := albedo.Session{
		ID: id, Workspace: r.workspace, Provider: respProvider, Model: "resp-model", Protocol: albedo.ProtocolResponses,
		Title: "do it", Stage: albedo.StageRunning, KernelUsed: true, Revision: 3, CreatedAt: now, UpdatedAt: now,
	}
	args := `{"code":"rm_everything()"}`
	if _, err := r.store.Commit(r.ctx, albedo.Commit{
		Session: &sess,
		Items: []albedo.Item{
			{Kind: albedo.KindUser, Text: "do it", Timestamp: now.UnixMilli()},
			{Kind: albedo.KindToolCall, CallID: crashedCall, ToolName: "python", Arguments: args, Protocol: albedo.ProtocolResponses,
				Raw: fakes.NativeCall(albedo.ProtocolResponses, crashedCall, "python", args), Timestamp: now.UnixMilli()},
		},
	}); err != nil {
		r.t.Fatal(err)
	}
	return sess
}

// restartNotes returns the user items albedo wrote because it restarted.
func restartNotes(items []albedo.Item) []albedo.Item {
	var out []albedo.Item
	for _, it := range ofKind(items, albedo.KindUser) {
		if it.Source == albedo.RestartSource {
			out = append(out, it)
		}
	}
	return out
}

// useStore rebuilds the rig's service over store, as a daemon started on
// that store would be.
func (r *rig) useStore(store albedo.Store) {
	r.svc = engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock})
	svc := r.svc
	r.t.Cleanup(func() { _ = svc.Close(context.Background()) })
}

// The daemon serves before it recovers, so a message can reach a session
// whose turn died with albedo before Recover gets to it. That turn must
// still resume as after a restart: the lost cell gets its output, the model
// is told, and the message joins the resumed turn after the note.
func TestSendBeforeRecoverResumesCrashedTurn(t *testing.T) {
	r := newRig(t, script(fakes.Text("checked, all fine")))
	crashed := r.seedCrashed("crashed")
	gate := fakes.NewGate()
	r.provider.SetGate(gate)

	if queued := r.send(crashed.ID, "are you there?"); !queued {
		t.Error("a message to a resuming turn was not queued for it")
	}
	<-gate.Entered()
	req := r.provider.Requests()[0]
	texts := userTexts(t, req.Input)
	if n := len(texts); n < 2 || !strings.HasPrefix(texts[n-2], `<system-note origin="daemon restart">albedo restarted`) || texts[n-1] != "are you there?" {
		t.Errorf("user messages of the first request = %q, want the restart note then the message", texts)
	}
	if got := outputsIn(t, req.Input)[crashedCall]; !strings.Contains(got, "albedo restarted while this cell was running") {
		t.Errorf("the crashed call's output = %q", got)
	}
	if n, err := r.svc.Recover(r.ctx); err != nil || n != 0 {
		t.Errorf("Recover after the message = %d, %v; want nothing left to resume", n, err)
	}
	gate.Open()
	r.waitIdle(crashed.ID)

	items := r.history(crashed.ID)
	checkPaired(t, items)
	if n := len(restartNotes(items)); n != 1 {
		t.Errorf("%d restart notes, want 1", n)
	}
	if n := r.provider.RequestCount(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if cells := r.kernel.Cells(); len(cells) != 0 {
		t.Errorf("the crashed cell was run again: %+v", cells)
	}
	if last := items[len(items)-1]; last.Kind != albedo.KindTurn || last.Text != albedo.TurnFinished {
		t.Errorf("last item = %+v", last)
	}
}

// listHookStore runs hook once, after Sessions has read its listing and
// before it returns it: the caller acts on a listing that is already old.
type listHookStore struct {
	albedo.Store
	armed atomic.Bool
	hook  func()
}

func (s *listHookStore) Sessions(ctx context.Context) ([]albedo.Session, error) {
	list, err := s.Store.Sessions(ctx)
	if s.armed.CompareAndSwap(true, false) {
		s.hook()
	}
	return list, err
}

// Recover lists the running sessions and then resumes them one by one. A
// session that was resumed, and finished, since the listing must not be
// resumed a second time.
func TestRecoverSkipsTurnsResumedSinceTheListing(t *testing.T) {
	tests := []struct {
		name string
		// resume resumes the crashed session another way and waits for
		// that turn to end.
		resume func(r *rig, id string)
	}{
		{"by a message", func(r *rig, id string) {
			r.send(id, "are you there?")
			r.waitIdle(id)
		}},
		{"by another Recover", func(r *rig, id string) {
			if n, err := r.svc.Recover(r.ctx); err != nil || n != 1 {
				r.t.Errorf("inner Recover = %d, %v", n, err)
			}
			r.waitIdle(id)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("checked, all fine")))
			crashed := r.seedCrashed("crashed")
			store := &listHookStore{Store: r.store}
			store.hook = func() { tc.resume(r, crashed.ID) }
			store.armed.Store(true)
			r.useStore(store)

			n, err := r.svc.Recover(r.ctx)
			if err != nil {
				t.Fatal(err)
			}
			r.waitIdle(crashed.ID)
			if n != 0 {
				t.Errorf("Recover resumed %d sessions, want 0", n)
			}
			items := r.history(crashed.ID)
			if n := len(restartNotes(items)); n != 1 {
				t.Errorf("%d restart notes, want 1", n)
			}
			if n := len(ofKind(items, albedo.KindTurn)); n != 1 {
				t.Errorf("%d turns, want 1", n)
			}
			if n := r.provider.RequestCount(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// ctxStore honours cancelled contexts the way a database does: a call made
// with one fails.
type ctxStore struct{ albedo.Store }

func (s ctxStore) Session(ctx context.Context, id string) (albedo.Session, error) {
	if err := ctx.Err(); err != nil {
		return albedo.Session{}, err
	}
	return s.Store.Session(ctx, id)
}

func (s ctxStore) Commit(ctx context.Context, c albedo.Commit) (albedo.Committed, error) {
	if err := ctx.Err(); err != nil {
		return albedo.Committed{}, err
	}
	return s.Store.Commit(ctx, c)
}

func (s ctxStore) Items(ctx context.Context, id string, after int64, limit int) ([]albedo.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Store.Items(ctx, id, after, limit)
}

func (s ctxStore) Queued(ctx context.Context, id string) ([]albedo.Queued, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Store.Queued(ctx, id)
}

// A cell that was interrupted may still have set globals. That it ran must
// be recorded even though the turn's context is cancelled by then, so that
// the model hears of it when those globals are lost.
func TestInterruptedCellIsRecordedAsKernelUse(t *testing.T) {
	r := newRig(t, script(fakes.Text("fresh start"), fakes.Python("x = load(); spin()")))
	r.useStore(ctxStore{r.store})
	gate := r.kernel.BlockUntilCancelled()
	sess := r.session("")
	r.send(sess.ID, "go")
	<-gate.Entered()
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if got := r.get(sess.ID); !got.KernelUsed {
		t.Errorf("session after an interrupted cell = kernelUsed %v, want true", got.KernelUsed)
	}

	r.kernel.SetGate(nil)
	r.useStore(ctxStore{r.store}) // albedo restarts: the kernel is gone
	r.turn(sess.ID, "carry on")
	reqs := r.provider.Requests()
	if got := lastUserText(t, reqs[len(reqs)-1].Input); !strings.Contains(got, albedo.KernelResetNote) {
		t.Errorf("first message after the restart = %q, want the kernel note", got)
	}
}

// A closed service starts nothing: Recover must not start a turn that
// Close neither stopped nor waited for.
func TestRecoverAfterCloseStartsNothing(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	if err := r.svc.Close(r.ctx); err != nil {
		t.Fatal(err)
	}
	crashed := r.seedCrashed("crashed")
	n, _ := r.svc.Recover(r.ctx)
	if running, _ := r.svc.Running(r.ctx, crashed.ID); running || n != 0 {
		t.Fatalf("Recover after Close resumed %d sessions (running %v)", n, running)
	}
	if got := r.get(crashed.ID); got.Stage != albedo.StageRunning || len(restartNotes(r.history(crashed.ID))) != 0 {
		t.Errorf("Recover after Close changed the crashed session: %+v", got)
	}
}

// A subscription made once the service has closed must end at once, as the
// ones made before did, rather than stay open forever.
func TestSubscribeAfterCloseIsEnded(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session("")
	r.turn(sess.ID, "hello")
	if err := r.svc.Close(r.ctx); err != nil {
		t.Fatal(err)
	}
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if len(sub.Snapshot) != len(r.history(sess.ID)) {
		t.Errorf("snapshot of %d events, want the history", len(sub.Snapshot))
	}
	select {
	case _, ok := <-sub.Events:
		if ok {
			t.Error("an event after Close")
		}
	default:
		t.Error("a subscription made after Close is still open")
	}
}

// The daemon serves before it recovers, so a client may watch a crashed
// session as its turn resumes: the stream must carry what the resumption
// records (the lost cell's output, the restart note) like any other item.
func TestSubscriberSeesResumedTurn(t *testing.T) {
	r := newRig(t, script(fakes.Text("checked, all fine")))
	crashed := r.seedCrashed("crashed")
	sentinel, err := r.svc.Subscribe(r.ctx, crashed.ID)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := r.svc.Subscribe(r.ctx, crashed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.svc.Recover(r.ctx); err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	settle(t, r, crashed.ID, sentinel)
	wantSeqs(t, "a subscriber from before Recover", durableSeqs(sub), int64(len(r.history(crashed.ID))))
}

// A reply to a vent that arrives while the filing session's turn runs joins
// that turn when it can (the turn goes on until the model has seen it), and
// otherwise waits for the next turn; either way it reaches the model once.
func TestVentReplyDuringTurnIsDeliveredOnce(t *testing.T) {
	tests := []struct {
		name string
		// reply is the scripted answer to the request in flight when the
		// vent is replied to.
		reply fakes.Reply
		// end ends that turn: open lets the held request answer.
		end func(r *rig, id string, open func())
		// wantPending says whether the note still waits once that turn
		// ended (and so joins the next one).
		wantPending bool
	}{
		{"joins the running turn", fakes.Text("done"), func(r *rig, id string, open func()) {
			open()
			r.waitIdle(id)
		}, false},
		{"waits after an interrupt", fakes.Hang(), func(r *rig, id string, _ func()) {
			if err := r.svc.Interrupt(r.ctx, id); err != nil {
				r.t.Fatal(err)
			}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("fine"), tc.reply))
			gate := fakes.NewGate()
			r.provider.SetGate(gate)
			sess := r.session("")
			v, err := r.svc.FileVent(r.ctx, sess.ID, albedo.NewVent{Topic: "bug", Message: "tests are slow"})
			if err != nil {
				t.Fatal(err)
			}
			r.send(sess.ID, "go")
			<-gate.Entered()
			if _, note, err := r.svc.PatchVent(r.ctx, v.ID, v.Revision, albedo.VentPatch{Reply: ptr("use -short")}); err != nil || note != engine.NoteQueued {
				t.Fatalf("reply = %q, %v", note, err)
			}
			tc.end(r, sess.ID, gate.Open)
			if n, _ := r.svc.PendingReplies(r.ctx, sess.ID); (n == 1) != tc.wantPending {
				t.Errorf("%d replies pending once the turn ended, want pending %v", n, tc.wantPending)
			}
			gate.Open()
			r.turn(sess.ID, "next")

			items := r.history(sess.ID)
			var notes, markers []int64
			for _, it := range items {
				switch {
				case it.Kind == albedo.KindUser && it.Source == albedo.ReplySource:
					notes = append(notes, it.Seq)
				case it.Kind == albedo.KindTurn:
					markers = append(markers, it.Seq)
				}
			}
			if len(notes) != 1 || len(markers) != 2 {
				t.Fatalf("%d reply notes and %d turns, want 1 and 2", len(notes), len(markers))
			}
			if inFirst := notes[0] < markers[0]; inFirst == tc.wantPending {
				t.Errorf("the note joined the first turn: %v, want %v", inFirst, !tc.wantPending)
			}
			if n, _ := r.svc.PendingReplies(r.ctx, sess.ID); n != 0 {
				t.Errorf("%d replies still pending", n)
			}
			reqs := r.provider.Requests()
			if all := strings.Join(userTexts(t, reqs[len(reqs)-1].Input), "\n"); !strings.Contains(all, "answers: use -short") {
				t.Errorf("the last request lacks the reply: %q", all)
			}
		})
	}
}
