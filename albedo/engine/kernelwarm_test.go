package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// TestATurnWarmsTheKernelOnceWhenNoneRuns: a turn of a session without a
// kernel warms one in its workspace before the model's first answer, once
// however many rounds follow; a turn after a cell does not, and a turn
// after a workspace move warms the new one.
func TestATurnWarmsTheKernelOnceWhenNoneRuns(t *testing.T) {
	var r *rig
	var warmsAtRequest []int
	r = newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		warmsAtRequest = append(warmsAtRequest, len(r.kernel.Warms()))
		if len(warmsAtRequest) <= 2 {
			return fakes.Python("x = 1")
		}
		return fakes.Text("done")
	})
	sess := r.session(respProvider)
	r.turn(sess.ID, "two cells, three rounds")
	want := []fakes.Warm{{SessionID: sess.ID, Workspace: r.workspace}}
	if got := r.kernel.Warms(); !slices.Equal(got, want) {
		t.Fatalf("warms = %v, want %v", got, want)
	}
	if !slices.Equal(warmsAtRequest, []int{1, 1, 1}) {
		t.Errorf("warms seen by the three requests = %v, want the warm start before the first", warmsAtRequest)
	}
	if n := len(r.kernel.Cells()); n != 2 {
		t.Fatalf("%d cells ran, want 2", n)
	}

	r.turn(sess.ID, "the kernel runs")
	if got := r.kernel.Warms(); len(got) != 1 {
		t.Errorf("a turn after a cell warmed the kernel again: %v", got)
	}

	moved := t.TempDir()
	if _, err := r.svc.MoveWorkspace(r.ctx, sess.ID, moved); err != nil {
		t.Fatal(err)
	}
	r.turn(sess.ID, "in the new folder")
	want = append(want, fakes.Warm{SessionID: sess.ID, Workspace: moved})
	if got := r.kernel.Warms(); !slices.Equal(got, want) {
		t.Errorf("warms after the move = %v, want %v", got, want)
	}
}

// TestAnUnusedWarmedKernelIsReapedUntold: a kernel warmed for a turn that
// was interrupted while the model answered ran no cell; the idle reaper
// stops it, the next turn warms another, and the model is never told
// that globals are gone, since it had none.
func TestAnUnusedWarmedKernelIsReapedUntold(t *testing.T) {
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply { return fakes.Text("hello") })
	r.tune = func(o *engine.Options) { o.KernelIdle = 2 * time.Second }
	r.svc = r.newService()
	sess := r.session(respProvider)
	gate := fakes.NewGate()
	r.provider.SetGate(gate)
	r.send(sess.ID, "interrupted while the model answers")
	<-gate.Entered()
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	r.provider.SetGate(nil)
	if n := len(r.kernel.Warms()); n != 1 {
		t.Fatalf("%d warm starts, want 1", n)
	}
	r.turn(sess.ID, "no cell yet")
	if n := len(r.kernel.Warms()); n != 1 {
		t.Errorf("the kernel warmed for the first turn was warmed again: %d warm starts", n)
	}

	r.clock.Advance(time.Hour)
	waitFor(t, "the warmed kernel to be stopped", func() bool { return slices.Contains(r.kernel.Stops(), sess.ID) })
	r.turn(sess.ID, "after the reaper")
	if n := len(r.kernel.Warms()); n != 2 {
		t.Errorf("%d warm starts, want another after the reaper", n)
	}
	for _, it := range r.history(sess.ID) {
		if strings.Contains(it.Text, albedo.KernelResetNote) || slices.Contains(it.Notes, albedo.KernelResetNote) {
			t.Errorf("the model was told its globals are gone: %+v", it)
		}
	}
	reqs := r.provider.Requests()
	if last := reqs[len(reqs)-1]; strings.Contains(string(last.Input[len(last.Input)-1]), "The python kernel") {
		t.Errorf("the last request tells of the kernel: %s", last.Input[len(last.Input)-1])
	}
}

// TestNoKernelWarmupLeavesTheStartToTheCell: with NoKernelWarmup a turn
// warms nothing.
func TestNoKernelWarmupLeavesTheStartToTheCell(t *testing.T) {
	r := newRig(t, script(fakes.Text("done"), fakes.Python("1")))
	r.tune = func(o *engine.Options) { o.NoKernelWarmup = true }
	r.svc = r.newService()
	sess := r.session(respProvider)
	r.turn(sess.ID, "a cell")
	if got := r.kernel.Warms(); len(got) != 0 || len(r.kernel.Cells()) != 1 {
		t.Errorf("warms %v and %d cells, want none and 1", got, len(r.kernel.Cells()))
	}
}

// TestAWarmedKernelLeftUnusedIsStoppedAfterAMinute: with kernels kept 30
// minutes (the daemon's default) or until Close, a kernel warmed for a
// turn that ran no cell is stopped a minute after the turn ended, untold;
// a kernel that ran a cell is kept as KernelIdle says.
func TestAWarmedKernelLeftUnusedIsStoppedAfterAMinute(t *testing.T) {
	for _, idle := range []time.Duration{30 * time.Minute, 0} {
		t.Run("KernelIdle="+idle.String(), func(t *testing.T) {
			r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
				if last := string(req.Input[len(req.Input)-1]); strings.Contains(last, "run a cell") {
					return fakes.Python("x = 1")
				}
				return fakes.Text("hello")
			})
			r.tune = func(o *engine.Options) { o.KernelIdle = idle }
			r.svc = r.newService()
			chat, coder := r.session(respProvider), r.session(respProvider)
			r.turn(chat.ID, "hi")
			r.turn(coder.ID, "run a cell")
			if n := len(r.kernel.Warms()); n != 2 {
				t.Fatalf("%d warm starts, want one per session", n)
			}

			r.clock.Advance(50 * time.Second)
			engine.StopIdleKernels(r.ctx, r.svc)
			if stops := r.kernel.Stops(); len(stops) != 0 {
				t.Fatalf("kernels stopped 50 s after the turns: %v", stops)
			}
			r.clock.Advance(11 * time.Second)
			engine.StopIdleKernels(r.ctx, r.svc)
			if stops := r.kernel.Stops(); !slices.Equal(stops, []string{chat.ID}) {
				t.Fatalf("stopped a minute after the turns: %v, want the unused warm kernel alone", stops)
			}

			r.turn(chat.ID, "hi again")
			for _, it := range r.history(chat.ID) {
				if slices.Contains(it.Notes, albedo.KernelResetNote) {
					t.Errorf("the model was told its globals are gone: %+v", it)
				}
			}
			if n := len(r.kernel.Warms()); n != 3 {
				t.Errorf("%d warm starts, want another for the turn after the stop", n)
			}
		})
	}
}

// TestAnUnusedWarmedKernelIsKeptAMinuteFromItsTurnsEnd: the minute of an
// unused warmed kernel counts from the end of the session's last turn,
// however long that turn took.
func TestAnUnusedWarmedKernelIsKeptAMinuteFromItsTurnsEnd(t *testing.T) {
	var r *rig
	r = newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		r.clock.Advance(5 * time.Minute) // the model thinks long
		return fakes.Text("hello")
	})
	r.tune = func(o *engine.Options) { o.KernelIdle = 30 * time.Minute }
	r.svc = r.newService()
	sess := r.session(respProvider)
	r.turn(sess.ID, "hi")
	r.clock.Advance(30 * time.Second)
	engine.StopIdleKernels(r.ctx, r.svc)
	if stops := r.kernel.Stops(); len(stops) != 0 {
		t.Fatalf("the warmed kernel was stopped 30 s after its turn ended: %v", stops)
	}
	r.clock.Advance(31 * time.Second)
	engine.StopIdleKernels(r.ctx, r.svc)
	if stops := r.kernel.Stops(); !slices.Equal(stops, []string{sess.ID}) {
		t.Fatalf("stops a minute after the turn = %v", stops)
	}
}
