package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestRecoverResumesCrashedTurn(t *testing.T) {
	tests := []struct {
		provider string
		protocol albedo.Protocol
	}{
		{respProvider, albedo.ProtocolResponses},
		{chatProvider, albedo.ProtocolChatCompletions},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("checked, all fine")))
			now := time.UnixMilli(1_700_000_000_000)
			crashed := albedo.Session{
				ID: "crashed", Workspace: r.workspace, Provider: tc.provider, Model: "own-model", Protocol: tc.protocol,
				Title: "do it", Stage: albedo.StageRunning, KernelUsed: true, Revision: 3, CreatedAt: now, UpdatedAt: now,
			}
			idle := crashed
			idle.ID, idle.Stage = "idle", albedo.StageIdle
			args := `{"code":"rm_everything()"}`
			for _, sess := range []albedo.Session{crashed, idle} {
				if _, err := r.store.Commit(r.ctx, albedo.Commit{
					Session: &sess,
					Items: []albedo.Item{
						{Kind: albedo.KindUser, Text: "do it", Timestamp: now.UnixMilli()},
						{Kind: albedo.KindToolCall, CallID: "call-crash", ToolName: "python", Arguments: args, Protocol: tc.protocol,
							Raw: fakes.NativeCall(tc.protocol, "call-crash", "python", args), Timestamp: now.UnixMilli()},
					},
					Enqueue: []albedo.Queued{{Text: "also this", Timestamp: now.UnixMilli()}},
				}); err != nil {
					t.Fatal(err)
				}
			}

			n, err := r.svc.Recover(r.ctx)
			if err != nil || n != 1 {
				t.Fatalf("Recover = %d, %v; want 1 session resumed", n, err)
			}
			r.waitIdle(crashed.ID)

			if cells := r.kernel.Cells(); len(cells) != 0 {
				t.Fatalf("the crashed cell was run again: %+v", cells)
			}
			items := r.history(crashed.ID)
			equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindUser, albedo.KindUser, albedo.KindAssistant, albedo.KindTurn)
			out := items[2]
			if out.CallID != "call-crash" || out.Result == nil || out.Result.Status != albedo.CellInterrupted {
				t.Errorf("output = %+v", out)
			}
			if items[3].Text != "also this" || items[3].Source != "" {
				t.Errorf("queued message = %+v", items[3])
			}
			var restarts []albedo.Item
			for _, it := range ofKind(items, albedo.KindUser) {
				if it.Source == albedo.RestartSource {
					restarts = append(restarts, it)
				}
			}
			if len(restarts) != 1 {
				t.Fatalf("%d restart messages, want 1", len(restarts))
			}
			note := restarts[0]
			if note.Text != engine.RestartCellsNote || len(note.Notes) != 1 || note.Notes[0] != albedo.KernelResetNote {
				t.Errorf("restart message = %+v", note)
			}
			if items[6].Text != albedo.TurnFinished {
				t.Errorf("marker = %q", items[6].Text)
			}

			reqs := r.provider.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			req := reqs[0]
			if req.Endpoint.Provider != tc.provider || req.Endpoint.Model != "own-model" || req.Endpoint.Protocol != tc.protocol {
				t.Errorf("endpoint = %+v", req.Endpoint)
			}
			last := lastUserText(t, req.Input)
			if !strings.HasPrefix(last, `<system-note origin="daemon restart">albedo restarted`) || !strings.Contains(last, "<system-note>The python kernel") {
				t.Errorf("last user message = %q", last)
			}
			all := ""
			for _, m := range req.Input {
				all += string(m)
			}
			if c := strings.Count(all, "The python kernel was restarted"); c != 1 {
				t.Errorf("the kernel note reaches the model %d times, want once", c)
			}
			if got := outputsIn(t, req.Input)["call-crash"]; !strings.Contains(got, "interrupted") {
				t.Errorf("crashed call's projected output = %q", got)
			}
			if got := r.get(crashed.ID); got.Stage != albedo.StageIdle || got.KernelUsed {
				t.Errorf("recovered session = stage %q kernelUsed %v", got.Stage, got.KernelUsed)
			}
			if got := r.get(idle.ID); got.Stage != albedo.StageIdle || len(r.history(idle.ID)) != 2 {
				t.Errorf("an idle session was touched by Recover")
			}
		})
	}
}

func TestRecoverSpeaksOfNoCellWhenNoneRan(t *testing.T) {
	r := newRig(t, script(fakes.Text("resumed answer")))
	now := time.UnixMilli(1_700_000_000_000)
	sess := albedo.Session{
		ID: "mid-answer", Workspace: r.workspace, Provider: chatProvider, Model: "own-model", Protocol: albedo.ProtocolChatCompletions,
		Title: "answer", Stage: albedo.StageRunning, Revision: 1, CreatedAt: now, UpdatedAt: now,
	}
	if _, err := r.store.Commit(r.ctx, albedo.Commit{Session: &sess, Items: []albedo.Item{{Kind: albedo.KindUser, Text: "answer", Timestamp: now.UnixMilli()}}}); err != nil {
		t.Fatal(err)
	}
	if n, err := r.svc.Recover(r.ctx); err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v; want 1 session resumed", n, err)
	}
	r.waitIdle(sess.ID)
	var notes []string
	for _, it := range ofKind(r.history(sess.ID), albedo.KindUser) {
		if it.Source == albedo.RestartSource {
			notes = append(notes, it.Text)
		}
	}
	if len(notes) != 1 || notes[0] != engine.RestartNote {
		t.Errorf("restart notes = %q, want one %q", notes, engine.RestartNote)
	}
}

func TestCloseLeavesTurnForRecover(t *testing.T) {
	r := newRig(t, script(fakes.Text("resumed answer"), fakes.Python("long()")))
	gate := r.kernel.BlockUntilCancelled()
	sess := r.session("")
	r.send(sess.ID, "work")
	<-gate.Entered()
	if err := r.svc.Close(r.ctx); err != nil {
		t.Fatal(err)
	}
	if r.kernel.Closes() == 0 {
		t.Error("Close did not close the kernel")
	}
	if _, err := r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: "late"}); albedo.ErrorCode(err) != albedo.EConflict {
		t.Errorf("Send after Close = %v, want conflict", err)
	}
	if got := r.get(sess.ID); got.Stage != albedo.StageRunning {
		t.Fatalf("stage after Close = %q, want running", got.Stage)
	}
	if items := r.history(sess.ID); len(ofKind(items, albedo.KindTurn)) != 0 {
		t.Fatalf("Close wrote a turn marker: %+v", items)
	}

	r.kernel.SetGate(nil)
	svc := r.newService()
	if n, err := svc.Recover(r.ctx); err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	waitFor(t, "the resumed turn to end", func() bool {
		running, err := svc.Running(r.ctx, sess.ID)
		return err == nil && !running
	})
	items := r.history(sess.ID)
	checkPaired(t, items)
	if n := len(r.kernel.Cells()); n != 1 {
		t.Errorf("%d cells, want the one that was interrupted and no rerun", n)
	}
	if last := items[len(items)-1]; last.Kind != albedo.KindTurn || last.Text != albedo.TurnFinished {
		t.Errorf("last item = %+v", last)
	}
	if got := ofKind(items, albedo.KindAssistant); len(got) != 1 || got[0].Text != "resumed answer" {
		t.Errorf("answers = %+v", got)
	}
}

// TestRecoverDoesNotCallAServerToolAgain: an MCP tool's call that was
// under way when albedo died is answered "not run again", and the server
// is not called.
func TestRecoverDoesNotCallAServerToolAgain(t *testing.T) {
	r := newRig(t, script(fakes.Text("resumed answer")))
	now := time.UnixMilli(1_700_000_000_000)
	sess := albedo.Session{
		ID: "mid-call", Workspace: r.workspace, Provider: chatProvider, Model: "own-model", Protocol: albedo.ProtocolChatCompletions,
		Title: "write", Stage: albedo.StageRunning, Revision: 1, CreatedAt: now, UpdatedAt: now,
	}
	args := `{"path":"a"}`
	if _, err := r.store.Commit(r.ctx, albedo.Commit{Session: &sess, Items: []albedo.Item{
		{Kind: albedo.KindUser, Text: "write", Timestamp: now.UnixMilli()},
		{Kind: albedo.KindToolCall, CallID: "call-mcp", ToolName: "mcp_fs_write", Arguments: args, Protocol: albedo.ProtocolChatCompletions,
			Raw: fakes.NativeCall(albedo.ProtocolChatCompletions, "call-mcp", "mcp_fs_write", args), Timestamp: now.UnixMilli()},
	}}); err != nil {
		t.Fatal(err)
	}
	if n, err := r.svc.Recover(r.ctx); err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v; want 1 session resumed", n, err)
	}
	r.waitIdle(sess.ID)
	out := ofKind(r.history(sess.ID), albedo.KindToolOutput)
	if len(out) != 1 || out[0].Result == nil || out[0].Result.Status != albedo.CellInterrupted || out[0].Result.Error != engine.RestartCallNote {
		t.Errorf("outputs = %+v; want the call's output saying it was not run again", out)
	}
	var notes []string
	for _, it := range ofKind(r.history(sess.ID), albedo.KindUser) {
		if it.Source == albedo.RestartSource {
			notes = append(notes, it.Text)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "The MCP tool call mcp_fs_write") || !strings.Contains(notes[0], "outcome is unknown") || strings.Contains(notes[0], "python cell") {
		t.Errorf("restart notes = %q; want one naming the MCP tool call cut short and no python cell", notes)
	}
}
