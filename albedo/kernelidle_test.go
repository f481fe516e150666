package albedo_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

// TestIdleKernelIsStoppedAndTheModelTold: a kernel idle past KernelIdle is
// stopped, and the next message tells the model its globals are gone.
func TestIdleKernelIsStoppedAndTheModelTold(t *testing.T) {
	provider := fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		if strings.Contains(string(req.Input[len(req.Input)-1]), "function_call_output") || strings.Contains(string(req.Input[len(req.Input)-1]), `"role":"tool"`) {
			return fakes.Text("done")
		}
		return fakes.Python("x = 1")
	})
	kernel := fakes.NewKernel()
	cfg := fakes.NewConfig("fixture", albedo.ProviderConfig{Name: "fixture", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Protocol: albedo.ProtocolChatCompletions})
	svc := albedo.New(albedo.Options{Workspaces: localfs.Workspaces{}, Store: memstore.New(), Provider: provider, Kernel: kernel, Config: cfg, KernelIdle: 50 * time.Millisecond})
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
	send("set x")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(kernel.Stops(), sess.ID) {
		if time.Now().After(deadline) {
			t.Fatal("the idle kernel was never stopped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	send("use x")
	reqs := provider.Requests()
	last := string(reqs[len(reqs)-2].Input[len(reqs[len(reqs)-2].Input)-1])
	if !strings.Contains(last, "use x") || !strings.Contains(last, "The python kernel was restarted") {
		t.Errorf("the message after the idle stop is %s, want it to carry the kernel note", last)
	}
}
