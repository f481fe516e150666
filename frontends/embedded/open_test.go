package embedded_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/frontends/embedded"
	"github.com/albedo-agent/albedo/frontends/home"
)

// writeConfig gives a home one provider, "fixture", and makes it active.
func writeConfig(t *testing.T, dir string) {
	t.Helper()
	const config = `{"active": "fixture", "providers": {"fixture": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "fixture-key", "model": "fixture-model", "protocol": "chat_completions"}}}`
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, home.ConfigFile), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
}

// script answers each request with the next reply, then with text "done".
func script(replies ...fakes.Reply) *fakes.Provider {
	n := 0
	return fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply {
		n++
		if n <= len(replies) {
			return replies[n-1]
		}
		return fakes.Text("done")
	})
}

func mustOpen(t *testing.T, opts embedded.Options) *embedded.Albedo {
	t.Helper()
	a, err := embedded.Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func runTurn(t *testing.T, a *embedded.Albedo, id, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.Send(ctx, id, text, nil); err != nil {
		t.Fatalf("send: %v", err)
	}
	if err := a.Wait(ctx, id); err != nil {
		t.Fatalf("wait: %v", err)
	}
}

// TestDefaults opens a home with the default store, configuration and
// Python kernel, and runs a cell that files a vent through a host call.
func TestDefaults(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir)
	provider := script(fakes.Python(`v = await vent("harness", "the fixture is too easy")` + "\nprint(v['id'])"))
	a := mustOpen(t, embedded.Options{Home: dir, Provider: provider})

	s, err := a.CreateSession(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Provider != "fixture" || s.Model != "fixture-model" || s.Protocol != "chat_completions" {
		t.Errorf("session = %+v", s)
	}
	runTurn(t, a, s.ID, "complain")
	history, err := a.History(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) < 3 || history[2].Kind != "tool_result" || !strings.Contains(history[2].Content[0].Value, `"output":"1\n"`) {
		t.Fatalf("history = %+v", history)
	}
	page, err := a.Vents(ctx, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].Message != "the fixture is too easy" || page.Items[0].Session() != s.ID {
		t.Errorf("vents = %+v", page.Items)
	}
	if _, err := os.Stat(filepath.Join(dir, home.DatabaseFile)); err != nil {
		t.Errorf("no database in the home: %v", err)
	}
}

// TestHomeFromEnvironment checks that an empty Home means $ALBEDO_HOME.
func TestHomeFromEnvironment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "albedo")
	t.Setenv("ALBEDO_HOME", dir)
	writeConfig(t, dir)
	a := mustOpen(t, embedded.Options{Provider: script(), Kernel: fakes.NewKernel()})
	if _, err := a.CreateSession(context.Background(), t.TempDir(), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, home.DatabaseFile)); err != nil {
		t.Errorf("no database in $ALBEDO_HOME: %v", err)
	}
}

// TestHomeLock checks that one home is served by one process at a time.
func TestHomeLock(t *testing.T) {
	dir := t.TempDir()
	opts := embedded.Options{Home: dir, Provider: script(), Kernel: fakes.NewKernel()}
	a := mustOpen(t, opts)
	if _, err := embedded.Open(context.Background(), opts); !errors.Is(err, embedded.ErrHomeInUse) {
		t.Fatalf("second open: err = %v, want ErrHomeInUse", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	mustOpen(t, opts)
}

// TestOpenResumes checks that Open resumes a turn that was running when
// the home was last closed, telling the model albedo restarted.
func TestOpenResumes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeConfig(t, dir)
	a := mustOpen(t, embedded.Options{Home: dir, Provider: script(fakes.Hang()), Kernel: fakes.NewKernel()})
	ws := t.TempDir()
	s, err := a.CreateSession(ctx, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, s.ID, "take your time", nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	provider := script(fakes.Text("resumed"))
	b := mustOpen(t, embedded.Options{Home: dir, Provider: provider, Kernel: fakes.NewKernel()})
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := b.Wait(wctx, s.ID); err != nil {
		t.Fatal(err)
	}
	d, err := b.Session(ctx, s.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range d.Events {
		got = append(got, ev.Type+":"+ev.Source)
	}
	if want := "user: user:daemon restart message: turn:"; strings.Join(got, " ") != want {
		t.Errorf("events = %q, want %q", strings.Join(got, " "), want)
	}
	if provider.RequestCount() != 1 {
		t.Errorf("provider got %d requests after the restart, want 1", provider.RequestCount())
	}
}

// TestNoServerDependencies keeps the HTTP server and the console out of
// programs that embed albedo.
func TestNoServerDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"gin-gonic", "tview", "tcell", "frontends/daemon", "frontends/console"} {
			if strings.Contains(dep, banned) {
				t.Errorf("embedded depends on %s", dep)
			}
		}
	}
}
