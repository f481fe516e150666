package pykernel

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// wrapper confines nothing: it runs kernels through env(1) with a marker
// variable, and counts the launches it made and released.
type wrapper struct {
	launched, released atomic.Int32
	refuse             error
}

func (w *wrapper) confine(_ context.Context, l Launch) (Launch, error) {
	if w.refuse != nil {
		return Launch{}, w.refuse
	}
	w.launched.Add(1)
	l.Argv = append([]string{"/usr/bin/env", "CONFINED_IN=" + l.Workspace}, l.Argv...)
	l.Release = func() { w.released.Add(1) }
	return l, nil
}

func TestConfineWrapsEachKernelStart(t *testing.T) {
	w := &wrapper{}
	k := newKernels(t, Options{Confine: w.confine})
	first, second := t.TempDir(), t.TempDir()
	res := run(t, k, "s", first, "import os; os.environ['CONFINED_IN']")
	if res.Status != albedo.CellOK || res.Value != "'"+first+"'" {
		t.Fatalf("cell = %+v, want the wrapper's variable", res)
	}
	pid := pidOf(k, "s")
	// A confined kernel serves only its workspace: a cell elsewhere gets a
	// fresh kernel, confined there.
	res = run(t, k, "s", second, "import os; os.environ['CONFINED_IN']")
	if res.Value != "'"+second+"'" || pidOf(k, "s") == pid {
		t.Errorf("cell in another workspace = %+v (pid %d, was %d), want a fresh kernel confined there", res, pidOf(k, "s"), pid)
	}
	if !waitGone(pid, 10*time.Second) {
		t.Fatal("the first kernel did not exit")
	}
	if err := k.Stop(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	if w.launched.Load() != 2 || w.released.Load() != 2 {
		t.Errorf("launched %d, released %d; want 2 and 2", w.launched.Load(), w.released.Load())
	}
}

func TestConfineRefusalRunsNothing(t *testing.T) {
	w := &wrapper{refuse: errors.New("the sandbox is required")}
	k := newKernels(t, Options{Confine: w.confine})
	_, err := k.Run(context.Background(), albedo.Cell{SessionID: "s", Workspace: t.TempDir(), Code: "1"})
	if err == nil || !strings.Contains(err.Error(), "the sandbox is required") {
		t.Errorf("Run = %v, want the refusal", err)
	}
	if pidOf(k, "s") != 0 {
		t.Error("a kernel runs after a refusal")
	}
}
