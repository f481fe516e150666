package pykernel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// wakes records the job ends a kernel passes on.
type wakes struct {
	mu   sync.Mutex
	ends []albedo.JobEnd
	ch   chan albedo.JobEnd
}

func newWakes() *wakes { return &wakes{ch: make(chan albedo.JobEnd, 16)} }

func (w *wakes) record(_ string, end albedo.JobEnd) {
	w.mu.Lock()
	w.ends = append(w.ends, end)
	w.mu.Unlock()
	w.ch <- end
}

// next waits for the next job end passed on.
func (w *wakes) next(t *testing.T) albedo.JobEnd {
	t.Helper()
	select {
	case end := <-w.ch:
		return end
	case <-time.After(20 * time.Second):
		t.Fatal("no job end was passed on")
		return albedo.JobEnd{}
	}
}

func (w *wakes) all() []albedo.JobEnd {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]albedo.JobEnd(nil), w.ends...)
}

func TestLiveOutputArrivesInOrderWhileTheCellRuns(t *testing.T) {
	k := newKernels(t, Options{})
	var pieces []string
	cell := albedo.Cell{SessionID: "live", Workspace: t.TempDir(), Code: `
import sys, time
for i in range(15):
    print("line", i)
    print("err", i, file=sys.stderr)
    time.sleep(0.03)
print("é" * 3, end="")
`, Output: func(text string) { pieces = append(pieces, text) }}
	res := runCell(t, k, context.Background(), cell)
	if res.Status != albedo.CellOK {
		t.Fatalf("result %+v", res)
	}
	if got := strings.Join(pieces, ""); got != res.Output {
		t.Errorf("live output %q\nwant the result's output %q", got, res.Output)
	}
	if len(pieces) < 2 {
		t.Errorf("the output came in %d piece(s), want it live, in several", len(pieces))
	}
	if !strings.HasPrefix(res.Output, "line 0\nerr 0\nline 1\nerr 1\n") {
		t.Errorf("stdout and stderr are not in order: %q", res.Output)
	}
	if res.DurationMS < 400 {
		t.Errorf("duration_ms = %d, want at least the 450ms the cell slept", res.DurationMS)
	}
}

func TestLiveOutputIsWholeWhereTheResultIsCut(t *testing.T) {
	k := newKernels(t, Options{OutputLimit: 100})
	var live strings.Builder
	cell := albedo.Cell{SessionID: "cut", Workspace: t.TempDir(), Code: `print("x" * 1000)`,
		Output: func(text string) { live.WriteString(text) }}
	res := runCell(t, k, context.Background(), cell)
	if live.String() != strings.Repeat("x", 1000)+"\n" {
		t.Errorf("live output has %d bytes, want all 1001", live.Len())
	}
	if !strings.Contains(res.Output, "bytes cut") {
		t.Errorf("the result's output is not cut: %d bytes", len(res.Output))
	}
}

func TestJobEndIsPassedOnOnceWhenNothingReadIt(t *testing.T) {
	w := newWakes()
	k := newKernels(t, Options{OnJobEnd: w.record})
	dir := t.TempDir()
	res := run(t, k, "job", dir, `j = run("echo started; sleep 0.2; echo done; exit 3")
(j.id, j.running, j.exit_code)`)
	if res.Value != "(1, True, None)" {
		t.Fatalf("a fresh job = %+v", res)
	}
	end := w.next(t)
	if end.ID != 1 || end.ExitCode != 3 || end.Duration < 200*time.Millisecond {
		t.Errorf("job end = %+v, want job 1, exit 3, at least 200ms", end)
	}
	res = run(t, k, "job", dir, `(j.running, j.exit_code, j.duration_ms >= 200, j.tail(), list(jobs()))`)
	if res.Value != "(False, 3, True, 'started\\ndone', [1])" {
		t.Errorf("the ended job = %+v", res)
	}
	if got := len(w.all()); got != 1 {
		t.Errorf("%d job ends passed on, want 1", got)
	}
}

// TestAJobCountsAsRunningUntilItsWakeIsTaken: a job whose end wakes the
// session still counts while the wake is being passed on, whether it ended
// after its cell or during it, so that the daemon's idle reaper never sees
// the kernel idle between the job's end and the turn the wake starts.
func TestAJobCountsAsRunningUntilItsWakeIsTaken(t *testing.T) {
	for _, tc := range []struct{ name, code string }{
		{"ending after its cell", `j = run("sleep 0.3")`},
		{"ending during its cell", `import time
j = run("exit 0")
time.sleep(0.3)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counted := make(chan int, 1)
			var k *Kernels
			k = newKernels(t, Options{OnJobEnd: func(session string, _ albedo.JobEnd) {
				counted <- k.RunningJobs(session)
			}})
			run(t, k, "wake", t.TempDir(), tc.code)
			select {
			case n := <-counted:
				if n != 1 {
					t.Errorf("RunningJobs while the wake is passed on = %d, want 1", n)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no job end was passed on")
			}
			deadline := time.Now().Add(20 * time.Second)
			for k.RunningJobs("wake") != 0 {
				if time.Now().After(deadline) {
					t.Fatal("the job still counts once its wake was taken")
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

func TestAwaitedJobIsNotPassedOn(t *testing.T) {
	w := newWakes()
	k := newKernels(t, Options{OnJobEnd: w.record})
	dir := t.TempDir()
	res := run(t, k, "await", dir, `j = run(["sh", "-c", "sleep 0.2; exit 2"])
await j`)
	if res.Value != "2" {
		t.Fatalf("await job = %+v", res)
	}
	res = run(t, k, "await", dir, `j2 = run("sleep 0.1"); j2.wait()`)
	if res.Value != "0" {
		t.Fatalf("j2.wait() = %+v", res)
	}
	// A third job nobody reads is passed on; the two before never are.
	run(t, k, "await", dir, `j3 = run("exit 5")`)
	if end := w.next(t); end.ID != 3 || end.ExitCode != 5 {
		t.Errorf("job end = %+v, want job 3 exit 5", end)
	}
	if got := w.all(); len(got) != 1 {
		t.Errorf("job ends passed on: %+v, want only job 3", got)
	}
}

// childOf starts a job whose shell runs a long child, and returns the
// job's and the child's pids.
func childOf(t *testing.T, k *Kernels, session, dir string) (job, child int) {
	t.Helper()
	res := run(t, k, session, dir, `import time
j = run("sleep 100 & echo $!; wait")
while not j.tail():
    time.sleep(0.01)
(j.pid, int(j.tail()))`)
	var a, b int
	if _, err := parsePair(res.Value, &a, &b); err != nil {
		t.Fatalf("pids = %+v: %v", res, err)
	}
	return a, b
}

func parsePair(s string, a, b *int) (int, error) {
	s = strings.Trim(s, "()")
	x, y, _ := strings.Cut(s, ", ")
	var err error
	if *a, err = strconv.Atoi(x); err != nil {
		return 0, err
	}
	*b, err = strconv.Atoi(y)
	return 2, err
}

func TestJobStopEndsItsWholeProcessGroup(t *testing.T) {
	w := newWakes()
	k := newKernels(t, Options{OnJobEnd: w.record})
	dir := t.TempDir()
	job, child := childOf(t, k, "stop", dir)
	if !alive(child) {
		t.Fatal("the job's child is not running")
	}
	res := run(t, k, "stop", dir, `(j.stop(), j.running)`)
	if res.Value != "(-15, False)" {
		t.Errorf("stop = %+v", res)
	}
	if !waitGone(child, 5*time.Second) || !waitGone(job, 5*time.Second) {
		t.Errorf("after stop(): job alive %v, its child alive %v", alive(job), alive(child))
	}
	if got := w.all(); len(got) != 0 {
		t.Errorf("a stopped job was passed on: %+v", got)
	}
}

func TestStoppingTheKernelStopsItsJobs(t *testing.T) {
	k := newKernels(t, Options{})
	job, child := childOf(t, k, "kstop", t.TempDir())
	if k.RunningJobs("kstop") != 1 {
		t.Errorf("RunningJobs = %d, want 1", k.RunningJobs("kstop"))
	}
	if err := k.Stop(context.Background(), "kstop"); err != nil {
		t.Fatal(err)
	}
	if !waitGone(child, 5*time.Second) || !waitGone(job, 5*time.Second) {
		t.Errorf("after Stop: job alive %v, its child alive %v", alive(job), alive(child))
	}
	if k.RunningJobs("kstop") != 0 {
		t.Errorf("RunningJobs after Stop = %d", k.RunningJobs("kstop"))
	}
}

// png23 is a 2×3 PNG.
var png23 = "b'\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR\\x00\\x00\\x00\\x02\\x00\\x00\\x00\\x03\\x08\\x06\\x00\\x00\\x00\\xb9\\xea\\xde\\x81\\x00\\x00\\x00\\x00IEND\\xaeB`\\x82'"

func TestShowImage(t *testing.T) {
	k := newKernels(t, Options{})
	dir := t.TempDir()
	run(t, k, "img", dir, "png = "+png23+"\nopen('chart.png', 'wb').write(png)\nopen('notes.txt', 'w').write('not an image')")
	tests := []struct {
		name   string
		code   string
		status albedo.CellStatus
		shown  int
		error  string
	}{
		{"a path", "show_image('chart.png')", albedo.CellOK, 1, ""},
		{"bytes with their type", "show_image(png, mime='image/png')", albedo.CellOK, 1, ""},
		{"four", "for _ in range(4): show_image(png)", albedo.CellOK, 4, ""},
		{"a fifth", "for _ in range(5): show_image(png)", albedo.CellError, 0, "at most 4 images"},
		{"not an image", "show_image('notes.txt')", albedo.CellError, 0, "is not a PNG, JPEG, GIF or WebP image"},
		{"the wrong type", "show_image(png, mime='image/jpeg')", albedo.CellError, 0, "is image/png, not image/jpeg"},
		{"a missing file", "show_image('gone.png')", albedo.CellError, 0, "FileNotFoundError"},
		{"a cell that fails after", "show_image(png); 1/0", albedo.CellError, 0, "ZeroDivisionError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, k, "img", dir, tt.code)
			if res.Status != tt.status || len(res.Shown) != tt.shown || len(res.Images) != tt.shown || !strings.Contains(res.Error, tt.error) {
				t.Fatalf("status %s, %d shown, %d described, error %q; want %s, %d, error with %q",
					res.Status, len(res.Shown), len(res.Images), res.Error, tt.status, tt.shown, tt.error)
			}
			for i, img := range res.Shown {
				if img.MimeType != "image/png" || img.Width != 2 || img.Height != 3 || res.Images[i] != *img.Meta() {
					t.Errorf("image %d = %+v (%+v)", i, img.Meta(), res.Images[i])
				}
			}
		})
	}
}

// TestAKernelNamesNoFolderForTheDaemonToRemove forges the event that
// starts a job, naming a folder of the user's, the way a cell can write
// any frame to its channel: the daemon removes the kernel's own jobs
// folder when it exits, and nothing it was told of.
func TestAKernelNamesNoFolderForTheDaemonToRemove(t *testing.T) {
	k := newKernels(t, Options{})
	victim := t.TempDir()
	if err := os.WriteFile(filepath.Join(victim, "keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := run(t, k, "forge", t.TempDir(), fmt.Sprintf(`import json, os, tempfile
body = json.dumps({"type": "job_started", "job": 99, "pid": os.getpid(), "dir": %q}).encode()
os.write(4, len(body).to_bytes(4, "big") + body)
j = run("true")
j.wait()
os.path.join(tempfile.gettempdir(), "albedo-jobs-%%d" %% os.getpid())`, victim))
	if res.Status != "ok" {
		t.Fatalf("cell = %+v", res)
	}
	own := strings.Trim(res.Value, "'")
	if _, err := os.Stat(own); err != nil {
		t.Fatalf("the kernel's jobs folder: %v", err)
	}
	if err := k.Stop(context.Background(), "forge"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Errorf("the folder the kernel named was removed: %v", err)
	}
	if _, err := os.Stat(own); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the kernel's own jobs folder %s is left: %v", own, err)
	}
}

// TestAForgedJobEventKillsNoOtherProcess forges the event that starts a
// job, naming a process group that is not the kernel's: stopping the
// kernel kills its own jobs and leaves that group alone.
func TestAForgedJobEventKillsNoOtherProcess(t *testing.T) {
	victim := exec.Command("sleep", "100")
	victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- victim.Wait() }()
	t.Cleanup(func() { _ = victim.Process.Kill() })
	k := newKernels(t, Options{})
	res := run(t, k, "forge", t.TempDir(), fmt.Sprintf(`import json, os
body = json.dumps({"type": "job_started", "job": 99, "pid": %d, "dir": "/"}).encode()
os.write(4, len(body).to_bytes(4, "big") + body)
run("true").wait()`, victim.Process.Pid))
	if res.Status != "ok" {
		t.Fatalf("cell = %+v", res)
	}
	if err := k.Stop(context.Background(), "forge"); err != nil {
		t.Fatal(err)
	}
	// Had the daemon killed it, SIGKILL came first; else SIGTERM ends it.
	_ = victim.Process.Signal(syscall.SIGTERM)
	if err := <-ended; err == nil || !strings.Contains(err.Error(), "terminated") {
		t.Errorf("the process the forged event named ended with %v, want our SIGTERM", err)
	}
}
