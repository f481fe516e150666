package pykernel

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

// warmDone returns what closes once the session's warm start is over:
// closed already when none is in progress.
func warmDone(k *Kernels, session string) <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s := k.sessions[session]; s != nil && s.warming != nil {
		return s.warming.done
	}
	done := make(chan struct{})
	close(done)
	return done
}

// warm warms a session's kernel and waits until the start is over.
func warm(t *testing.T, k *Kernels, session, workspace string) {
	t.Helper()
	k.Warm(context.Background(), session, workspace)
	select {
	case <-warmDone(k, session):
	case <-time.After(startTimeout):
		t.Fatal("the warm start never ended")
	}
}

// heldStart is an Options.Confine that holds every kernel start until
// released, counting the starts.
type heldStart struct {
	starts  atomic.Int32
	entered chan struct{} // receives as each start is held
	release chan struct{}
}

func newHeldStart() *heldStart {
	return &heldStart{entered: make(chan struct{}, 8), release: make(chan struct{})}
}

func (h *heldStart) confine(ctx context.Context, l Launch) (Launch, error) {
	h.starts.Add(1)
	h.entered <- struct{}{}
	select {
	case <-h.release:
		return l, nil
	case <-ctx.Done():
		return Launch{}, ctx.Err()
	}
}

// askedCtx is a context that says when its Done is first asked for: a
// cell asks as it waits for its session's turn.
type askedCtx struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func newAskedCtx() *askedCtx {
	return &askedCtx{Context: context.Background(), asked: make(chan struct{})}
}

func (c *askedCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.asked) })
	return c.Context.Done()
}

func TestAWarmedKernelRunsTheFirstCell(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	warm(t, k, "s", workspace)
	pid := pidOf(k, "s")
	if pid == 0 || !alive(pid) {
		t.Fatalf("no kernel runs after the warm start (pid %d)", pid)
	}
	k.Warm(context.Background(), "s", workspace) // one runs: nothing to do
	res := run(t, k, "s", workspace, "import os; os.getpid()")
	if res.Value != strconv.Itoa(pid) || res.Fresh {
		t.Errorf("first cell = %q %q, fresh %v; want it in the warmed kernel %d, not fresh", res.Value, res.Error, res.Fresh, pid)
	}
	warm(t, k, "s", workspace) // after a cell too
	if again := run(t, k, "s", workspace, "import os; os.getpid()"); again.Value != strconv.Itoa(pid) || again.Fresh {
		t.Errorf("the next cell = %q, fresh %v; want the same kernel %d", again.Value, again.Fresh, pid)
	}
}

func TestACellDuringAWarmStartWaitsForIt(t *testing.T) {
	held := newHeldStart()
	k := newKernels(t, Options{Confine: held.confine})
	workspace := t.TempDir()
	k.Warm(context.Background(), "s", workspace)
	<-held.entered
	ctx := newAskedCtx()
	cell := make(chan albedo.CellResult, 1)
	go func() {
		res, err := k.Run(ctx, albedo.Cell{SessionID: "s", Workspace: workspace, Code: "import os; os.getpid()"})
		if err != nil {
			res.Error = err.Error()
		}
		cell <- res
	}()
	<-ctx.asked // the cell waits for the session's turn
	close(held.release)
	res := <-cell
	if res.Status != albedo.CellOK || res.Fresh {
		t.Fatalf("cell = %+v, want ok and not fresh", res)
	}
	if n := held.starts.Load(); n != 1 {
		t.Errorf("%d kernel starts, want the warm start's only", n)
	}
	if pid := pidOf(k, "s"); res.Value != strconv.Itoa(pid) {
		t.Errorf("the cell ran in %s, the session's kernel is %d", res.Value, pid)
	}
}

// neverReady returns an Options.Confine whose kernels start and never get
// ready, each writing its pid to a file in dir.
func neverReady(dir string) func(context.Context, Launch) (Launch, error) {
	return func(_ context.Context, l Launch) (Launch, error) {
		l.Argv = []string{l.Argv[0], "-c", "import os, sys, time\nopen(sys.argv[1] + '.tmp', 'w').write(str(os.getpid()))\nos.rename(sys.argv[1] + '.tmp', sys.argv[1])\ntime.sleep(600)", filepath.Join(dir, "pid")}
		return l, nil
	}
}

// waitPidFile waits for the pid a neverReady kernel wrote in dir.
func waitPidFile(t *testing.T, dir string) int {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the warmed kernel never started")
	return 0
}

func TestEndingAWarmStartLeavesNoProcess(t *testing.T) {
	tests := []struct {
		name string
		// end ends the warm start; cancel cancels its context.
		end func(ctx context.Context, k *Kernels, cancel context.CancelFunc) error
	}{
		{"Close", func(ctx context.Context, k *Kernels, _ context.CancelFunc) error { return k.Close(ctx) }},
		{"Stop", func(ctx context.Context, k *Kernels, _ context.CancelFunc) error { return k.Stop(ctx, "s") }},
		{"its context", func(ctx context.Context, k *Kernels, cancel context.CancelFunc) error {
			cancel()
			select {
			case <-warmDone(k, "s"):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			k := newKernels(t, Options{Confine: neverReady(dir)})
			warmCtx, cancelWarm := context.WithCancel(context.Background())
			defer cancelWarm()
			k.Warm(warmCtx, "s", t.TempDir())
			pid := waitPidFile(t, dir)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tt.end(ctx, k, cancelWarm); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			select {
			case <-warmDone(k, "s"):
			default:
				t.Errorf("the warm start is still in progress after %s returned", tt.name)
			}
			if alive(pid) {
				t.Errorf("the warming kernel %d still runs after %s returned", pid, tt.name)
			}
			if got := pidOf(k, "s"); got != 0 {
				t.Errorf("the session keeps kernel %d after %s", got, tt.name)
			}
		})
	}
}

func TestAWarmedKernelIsNoEarlierKernel(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	warm(t, k, "s", workspace)
	if err := k.Stop(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	// The warmed kernel ran no cell: the model lost nothing.
	if res := run(t, k, "s", workspace, "x = 1"); res.Status != albedo.CellOK || res.Fresh {
		t.Errorf("first cell after a warmed kernel was stopped = %+v, want ok and not fresh", res)
	}
	if err := k.Stop(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	// The kernel that ran a cell is an earlier kernel: the first cell in
	// the next one is fresh, warmed or not.
	warm(t, k, "s", workspace)
	if res := run(t, k, "s", workspace, "'x' in globals()"); res.Value != "False" || !res.Fresh {
		t.Errorf("first cell in a warmed kernel after a stop = %q, fresh %v; want False and fresh", res.Value, res.Fresh)
	}
	if res := run(t, k, "s", workspace, "1"); res.Fresh {
		t.Error("the second cell in the warmed kernel is fresh")
	}
}

func TestAFailedWarmStartLeavesTheCellItsOwnStart(t *testing.T) {
	var starts atomic.Int32
	k := newKernels(t, Options{Confine: func(_ context.Context, l Launch) (Launch, error) {
		if starts.Add(1) == 1 {
			return Launch{}, errors.New("the sandbox is not ready yet")
		}
		return l, nil
	}})
	workspace := t.TempDir()
	warm(t, k, "s", workspace)
	if pid := pidOf(k, "s"); pid != 0 {
		t.Fatalf("kernel %d runs after a failed warm start", pid)
	}
	res := run(t, k, "s", workspace, "1 + 1")
	if res.Status != albedo.CellOK || res.Value != "2" || res.Fresh {
		t.Errorf("cell after a failed warm start = %+v, want ok, 2, not fresh", res)
	}
	if n := starts.Load(); n != 2 {
		t.Errorf("%d starts, want the warm start's and the cell's", n)
	}
}

func TestAKernelWarmedInAnotherWorkspaceIsReplaced(t *testing.T) {
	k := newKernels(t, Options{})
	before, after := t.TempDir(), t.TempDir()
	// As when the workspace moves while a warm start is on its way.
	warm(t, k, "s", before)
	pid := pidOf(k, "s")
	res := run(t, k, "s", after, "import os; print(os.getpid()); print(os.getcwd())")
	if res.Status != albedo.CellOK || res.Output == strconv.Itoa(pid)+"\n"+after+"\n" || !strings.HasSuffix(res.Output, "\n"+after+"\n") || res.Fresh {
		t.Errorf("cell in the new workspace = %q %q, fresh %v; want a kernel other than %d started there", res.Output, res.Error, res.Fresh, pid)
	}
	if !waitGone(pid, 10*time.Second) {
		t.Errorf("the kernel warmed in the old workspace still runs")
	}
}

// warmKey marks the context of a warm start.
type warmKey struct{}

func TestACellRightAfterWarmRunsInTheWarmedKernel(t *testing.T) {
	var mu sync.Mutex
	var byWarm []bool // for each start, whether the warm start made it
	k := newKernels(t, Options{Confine: func(ctx context.Context, l Launch) (Launch, error) {
		mu.Lock()
		defer mu.Unlock()
		byWarm = append(byWarm, ctx.Value(warmKey{}) != nil)
		return l, nil
	}})
	workspace := t.TempDir()
	k.Warm(context.WithValue(context.Background(), warmKey{}, true), "s", workspace)
	res := run(t, k, "s", workspace, "1")
	if res.Status != albedo.CellOK || res.Fresh {
		t.Fatalf("cell = %+v, want ok and not fresh", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(byWarm) != 1 || !byWarm[0] {
		t.Errorf("starts made by the warm start: %v, want the one start, by it", byWarm)
	}
}

// TestTheIdleReaperStopsAnUnusedWarmedKernelUntold: with the domain's
// service, a turn starts the session's kernel while the model answers; the
// model answers without a cell, the idle reaper stops the kernel, and the
// next turn's cell is not reported as having lost globals, since none
// ever ran.
func TestTheIdleReaperStopsAnUnusedWarmedKernelUntold(t *testing.T) {
	k := newKernels(t, Options{})
	var warmed int
	provider := fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		last := string(req.Input[len(req.Input)-1])
		switch {
		case strings.Contains(last, "function_call_output"):
			return fakes.Text("done")
		case strings.Contains(last, "a cell"):
			return fakes.Python("'x' in globals()")
		}
		deadline := time.Now().Add(startTimeout)
		for warmed = pidOf(k, req.SessionID); warmed == 0 && time.Now().Before(deadline); warmed = pidOf(k, req.SessionID) {
			time.Sleep(time.Millisecond)
		}
		return fakes.Text("hello")
	})
	cfg := fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: albedo.ProtocolResponses})
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: memstore.New(), Provider: provider, Kernel: k, Config: cfg, KernelIdle: 20 * time.Millisecond})
	t.Cleanup(func() { svc.Close(t.Context()) })
	sess, err := svc.CreateSession(t.Context(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	send := func(text string) {
		t.Helper()
		if _, err := svc.Send(t.Context(), sess.ID, albedo.Message{Text: text}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Wait(t.Context(), sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	send("hello")
	if warmed == 0 {
		t.Fatal("no kernel started while the model answered")
	}
	if !waitGone(warmed, 30*time.Second) {
		t.Fatal("the unused warmed kernel was never stopped")
	}
	send("a cell")
	items, err := svc.History(t.Context(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	outputs := 0
	for _, it := range items {
		if strings.Contains(it.Text, albedo.KernelResetNote) || slices.Contains(it.Notes, albedo.KernelResetNote) {
			t.Errorf("the model was told its globals are gone: %+v", it)
		}
		if it.Kind == albedo.KindToolOutput {
			outputs++
		}
	}
	if outputs != 1 {
		t.Errorf("%d cell outputs, want 1", outputs)
	}
}
