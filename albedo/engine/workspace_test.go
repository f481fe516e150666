package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestMoveWorkspaceRejections(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session("")
	root := t.TempDir()
	file := writeFile(t, root, "a-file")
	tests := []struct {
		name string
		path string
	}{
		{"empty", ""},
		{"relative", "some/folder"},
		{"same path", sess.Workspace},
		{"same path unclean", sess.Workspace + string(filepath.Separator) + "."},
		{"missing", filepath.Join(root, "missing")},
		{"file", file},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.svc.MoveWorkspace(r.ctx, sess.ID, tc.path)
			wantCode(t, err, albedo.EWorkspaceRejected)
			if got := albedo.ErrorDetails(err)["workspace"]; got != sess.Workspace {
				t.Errorf("details workspace = %v, want the old path %q", got, sess.Workspace)
			}
		})
	}
	if got := r.get(sess.ID); got.Workspace != sess.Workspace || got.Revision != sess.Revision {
		t.Errorf("rejected moves changed the session: %+v", got)
	}
	if stops := r.kernel.Stops(); len(stops) != 0 {
		t.Errorf("rejected moves stopped the kernel: %v", stops)
	}
	_, err := r.svc.MoveWorkspace(r.ctx, "nope", root)
	wantCode(t, err, albedo.ENotFound)
}

func TestMoveWorkspaceBusy(t *testing.T) {
	r := newRig(t, script(fakes.Text("x"), fakes.Python("slow()")))
	gate := r.kernel.BlockUntilCancelled()
	sess := r.session("")
	r.send(sess.ID, "go")
	<-gate.Entered()
	_, err := r.svc.MoveWorkspace(r.ctx, sess.ID, t.TempDir())
	wantCode(t, err, albedo.EBusy)
	gate.Open()
	r.waitIdle(sess.ID)
}

func TestMoveWorkspaceAfterRename(t *testing.T) {
	r := newRig(t, script(fakes.Text("moved on"), fakes.Python("x = 1"), fakes.Text("set x")))
	root := t.TempDir()
	old := mkdir(t, root, "project")
	r.workspace = old
	sess := r.session("")
	r.turn(sess.ID, "set x")

	moved := filepath.Join(root, "project-renamed")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	_, err := r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: "still there?"})
	wantCode(t, err, albedo.EWorkspaceMissing)
	if got := albedo.ErrorDetails(err)["workspace"]; got != old {
		t.Errorf("details workspace = %v, want %q", got, old)
	}
	if n := len(r.history(sess.ID)); n != 5 {
		t.Errorf("a refused message was recorded: %d items", n)
	}

	got, err := r.svc.MoveWorkspace(r.ctx, sess.ID, moved+string(filepath.Separator))
	if err != nil {
		t.Fatal(err)
	}
	if got.Workspace != moved || got.Revision <= sess.Revision {
		t.Errorf("moved session = %+v", got)
	}
	if stops := r.kernel.Stops(); !slices.Equal(stops, []string{sess.ID}) {
		t.Errorf("kernel stops = %v, want the session's kernel stopped once", stops)
	}
	r.turn(sess.ID, "still there?")
	reqs := r.provider.Requests()
	if last := lastUserText(t, reqs[len(reqs)-1].Input); last != "still there?\n<system-note>"+albedo.KernelResetNote+"</system-note>" {
		t.Errorf("first message after the move = %q, want the kernel note", last)
	}
	if n := len(r.history(sess.ID)); n != 8 {
		t.Errorf("%d items after the moved turn, want 8", n)
	}
}
