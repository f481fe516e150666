package pykernel

import (
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

// TestTheIdleReaperSparesAKernelWithRunningJobs: the domain's idle reaper,
// the only one, counts this adapter's running jobs and keeps a kernel that
// has any, globals and all, while it stops the idle kernel beside it.
func TestTheIdleReaperSparesAKernelWithRunningJobs(t *testing.T) {
	k := newKernels(t, Options{})
	provider := fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		last := string(req.Input[len(req.Input)-1])
		switch {
		case strings.Contains(last, "function_call_output"):
			return fakes.Text("done")
		case strings.Contains(last, "start a job"):
			return fakes.Python("x = 42\nj = run('sleep 100')")
		case strings.Contains(last, "stop the job"):
			return fakes.Python("j.stop(); x")
		}
		return fakes.Python("y = 1")
	})
	cfg := fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: albedo.ProtocolResponses})
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: memstore.New(), Provider: provider, Kernel: k, Config: cfg, KernelIdle: 20 * time.Millisecond})
	t.Cleanup(func() { svc.Close(t.Context()) })
	send := func(id, text string) {
		t.Helper()
		if _, err := svc.Send(t.Context(), id, albedo.Message{Text: text}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Wait(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	busy, err := svc.CreateSession(t.Context(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	idle, err := svc.CreateSession(t.Context(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	// The session with a job ends its cell first, so it is idle for longer
	// in every pass of the reaper that stops the other.
	send(busy.ID, "start a job")
	pid := pidOf(k, busy.ID)
	send(idle.ID, "plain")
	idlePid := pidOf(k, idle.ID)
	if pid == 0 || idlePid == 0 {
		t.Fatalf("kernels %d and %d, want both running", pid, idlePid)
	}
	if !waitGone(idlePid, 30*time.Second) {
		t.Fatal("the idle kernel was never stopped")
	}
	if pidOf(k, busy.ID) != pid || !alive(pid) {
		t.Fatal("the kernel with a running job was stopped")
	}
	send(busy.ID, "stop the job")
	items, err := svc.History(t.Context(), busy.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out albedo.Item
	for _, it := range items {
		if it.Kind == albedo.KindToolOutput {
			out = it
		}
	}
	if !strings.Contains(out.Text, "42") || strings.Contains(out.Text, albedo.KernelResetNote) {
		t.Errorf("the kernel with a job lost its globals: %+v", out)
	}
}
