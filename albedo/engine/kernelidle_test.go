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

// TestIdleKernelIsStoppedAndTheModelTold: a kernel idle past KernelIdle is
// stopped, and the next message tells the model its globals are gone:
// once, though the kernel reports the fresh start of its next cell too.
func TestIdleKernelIsStoppedAndTheModelTold(t *testing.T) {
	provider := fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		if strings.Contains(string(req.Input[len(req.Input)-1]), "function_call_output") || strings.Contains(string(req.Input[len(req.Input)-1]), `"role":"tool"`) {
			return fakes.Text("done")
		}
		return fakes.Python("x = 1")
	})
	kernel := fakes.NewKernel()
	svc := fixtureService(t, provider, kernel, albedo.ProtocolChatCompletions, func(o *engine.Options) { o.KernelIdle = 50 * time.Millisecond })
	sess := newSessionOf(t, svc, t.TempDir())
	turnOf(t, svc, sess.ID, "set x")
	waitFor(t, "the idle kernel to be stopped", func() bool { return slices.Contains(kernel.Stops(), sess.ID) })
	turnOf(t, svc, sess.ID, "use x")
	reqs := provider.Requests()
	last := string(reqs[len(reqs)-2].Input[len(reqs[len(reqs)-2].Input)-1])
	if !strings.Contains(last, "use x") || !strings.Contains(last, "The python kernel was restarted") {
		t.Errorf("the message after the idle stop is %s, want it to carry the kernel note", last)
	}
	var whole strings.Builder
	for _, in := range reqs[len(reqs)-1].Input {
		whole.Write(in)
	}
	if n := strings.Count(whole.String(), "The python kernel was restarted"); n != 1 {
		t.Errorf("the model was told %d times that its globals are gone, want once:\n%s", n, whole.String())
	}
}

// TestKernelLostBetweenCellsIsToldWithTheCell: a kernel that went away by
// itself between two cells of a turn is reported with the next cell's
// output, the only place the model can learn of it.
func TestKernelLostBetweenCellsIsToldWithTheCell(t *testing.T) {
	calls := 0
	provider := fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		calls++
		if calls > 2 {
			return fakes.Text("done")
		}
		return fakes.Python("x = 1")
	})
	kernel := fakes.NewKernel()
	svc := fixtureService(t, provider, kernel, albedo.ProtocolChatCompletions, nil)
	sess := newSessionOf(t, svc, t.TempDir())
	kernel.SetResult(func(n int, cell albedo.Cell) (albedo.CellResult, error) {
		if n == 1 {
			kernel.Lose(sess.ID) // it crashes right after the first cell
		}
		return albedo.CellResult{Status: albedo.CellOK, Output: "ok\n"}, nil
	})
	items := turnOf(t, svc, sess.ID, "two cells")
	var told []int
	outputs := 0
	for _, it := range items {
		if it.Kind == albedo.KindToolOutput {
			outputs++
			if strings.Contains(it.Text, albedo.KernelResetNote) {
				told = append(told, outputs)
			}
		}
		if it.Kind == albedo.KindUser && slices.Contains(it.Notes, albedo.KernelResetNote) {
			t.Errorf("the user message carries the kernel note: the kernel was live then")
		}
	}
	if outputs != 2 || !slices.Equal(told, []int{2}) {
		t.Errorf("%d outputs, the note on outputs %v; want it on the second of two", outputs, told)
	}
}
