package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// instructionFiles is an InstructionSource whose files a test edits.
type instructionFiles struct {
	mu    sync.Mutex
	files []albedo.InstructionFile
	reads int
}

func (f *instructionFiles) Instructions(context.Context, string) (albedo.InstructionSet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return albedo.InstructionSet{Files: append([]albedo.InstructionFile(nil), f.files...), Warnings: []string{"big.md was skipped: it is over 1 MiB"}}, nil
}

func (f *instructionFiles) set(files ...albedo.InstructionFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files = files
}

func TestComposeInstructions(t *testing.T) {
	big := strings.Repeat("é", albedo.MaxInstructionText/2-1) + "tail" // 32 KiB + 2 bytes
	tests := []struct {
		name     string
		files    []albedo.InstructionFile
		want     []albedo.InstructionUse
		contains []string
	}{
		{"none", nil, []albedo.InstructionUse{}, []string{"OWN\n\nENV"}},
		{"in order, wrapped", []albedo.InstructionFile{{Source: "ALBEDO_HOME/AGENTS.md", Text: "mine"}, {Source: "AGENTS.md", Text: "root"}, {Source: "sub/CLAUDE.md", Text: "nested"}},
			[]albedo.InstructionUse{{Path: "ALBEDO_HOME/AGENTS.md", Bytes: 4}, {Path: "AGENTS.md", Bytes: 4}, {Path: "sub/CLAUDE.md", Bytes: 6}},
			[]string{"OWN\n\nENV\n\n<project-instructions source=\"ALBEDO_HOME/AGENTS.md\">\nmine\n</project-instructions>\n\n<project-instructions source=\"AGENTS.md\">\nroot\n</project-instructions>\n\n<project-instructions source=\"sub/CLAUDE.md\">\nnested\n</project-instructions>"}},
		{"cut at 32 KiB on a character boundary", []albedo.InstructionFile{{Source: "AGENTS.md", Text: "abc"}, {Source: "sub/AGENTS.md", Text: big}, {Source: "sub/deeper/AGENTS.md", Text: "late"}},
			[]albedo.InstructionUse{{Path: "AGENTS.md", Bytes: 3}, {Path: "sub/AGENTS.md", Bytes: albedo.MaxInstructionText - 4, Truncated: true}, {Path: "sub/deeper/AGENTS.md", Bytes: 0, Truncated: true}},
			[]string{"[cut: the rest of sub/AGENTS.md is left out", "[cut: the rest of sub/deeper/AGENTS.md is left out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, used := albedo.ComposeInstructions("OWN", "ENV", albedo.InstructionSet{Files: tt.files})
			if len(used) != len(tt.want) {
				t.Fatalf("used = %+v, want %+v", used, tt.want)
			}
			total := 0
			for i := range used {
				if used[i] != tt.want[i] {
					t.Errorf("use %d = %+v, want %+v", i, used[i], tt.want[i])
				}
				total += used[i].Bytes
			}
			if total > albedo.MaxInstructionText {
				t.Errorf("%d bytes of file text, more than %d", total, albedo.MaxInstructionText)
			}
			for _, s := range tt.contains {
				if !strings.Contains(text, s) {
					t.Errorf("instructions lack %q", s)
				}
			}
			if !strings.HasPrefix(text, "OWN\n\nENV") || strings.Contains(text, "tail") {
				t.Errorf("instructions start %q… and hold the cut tail: %v", text[:min(len(text), 20)], strings.Contains(text, "tail"))
			}
		})
	}
}

// TestInstructionsChangeTakesEffectNextTurnWithOneNote edits a file while a
// turn runs: the turn keeps what it read, the next turn sends the new text
// and its user message carries one note, and the turn after carries none.
// The files never reach the transcript.
func TestInstructionsChangeTakesEffectNextTurnWithOneNote(t *testing.T) {
	files := &instructionFiles{}
	files.set(albedo.InstructionFile{Source: "AGENTS.md", Text: "use tabs"})
	n := 0
	provider := fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply {
		n++
		if n == 1 {
			files.set(albedo.InstructionFile{Source: "AGENTS.md", Text: "use spaces"})
			return fakes.Python("print(1)")
		}
		return fakes.Text("ok")
	})
	r := newRig(t, nil)
	r.provider = provider
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: r.store, Provider: provider, Kernel: r.kernel, Config: r.config, Clock: r.clock, ProjectInstructions: files})
	t.Cleanup(func() { svc.Close(context.Background()) })
	r.svc = svc
	sess := r.session("")
	r.turn(sess.ID, "first")
	r.turn(sess.ID, "second")
	r.turn(sess.ID, "third")

	reqs := provider.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, want := range []string{"use tabs", "use tabs", "use spaces", "use spaces"} {
		wrapped := "<project-instructions source=\"AGENTS.md\">\n" + want + "\n</project-instructions>"
		if !strings.Contains(reqs[i].Instructions, wrapped) {
			t.Errorf("request %d instructions lack %q:\n%s", i+1, wrapped, reqs[i].Instructions)
		}
	}
	var notes [][]string
	for _, it := range ofKind(r.history(sess.ID), albedo.KindUser) {
		notes = append(notes, it.Notes)
	}
	if len(notes) != 3 || len(notes[0]) != 0 || len(notes[1]) != 1 || !strings.Contains(notes[1][0], "AGENTS.md") || len(notes[2]) != 0 {
		t.Errorf("notes of the user messages = %q, want one note on the second naming AGENTS.md", notes)
	}
	for _, it := range r.history(sess.ID) {
		if strings.Contains(it.Text, "project-instructions") || strings.Contains(it.Text, "use spaces") || strings.Contains(string(it.Raw), "use tabs") {
			t.Errorf("instructions in the transcript: %+v", it)
		}
	}
	if files.reads != 3 {
		t.Errorf("files read %d times, want once per turn (3)", files.reads)
	}
	glances, err := svc.Glances(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range glances {
		if g["extension"] == "instructions" {
			w, _ := g["warnings"].([]any)
			found = len(w) == 1 && w[0] == "big.md was skipped: it is over 1 MiB"
		}
	}
	if !found {
		t.Errorf("glances = %v, want the skipped file's warning", glances)
	}
}

// TestStatusEventCarriesTheContext checks that the live status event after
// a reply says the window, the context used and the percentage.
func TestStatusEventCarriesTheContext(t *testing.T) {
	r := newRig(t, script(fakes.Text("hi")))
	r.config = fakes.NewConfig(respProvider, albedo.ProviderConfig{Name: respProvider, BaseURL: "http://resp.invalid/v1", Model: "resp-model", Protocol: albedo.ProtocolResponses, ContextWindow: 1000})
	usage := fakes.Text("hi")
	usage.Usage = albedo.Usage{InputTokens: albedo.Tokens(250), OutputTokens: albedo.Tokens(3)}
	r.provider = fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return usage })
	r.svc = engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: r.store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock})
	t.Cleanup(func() { r.svc.Close(context.Background()) })
	sess := r.session("")
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	r.send(sess.ID, "hello")
	for ev := range sub.Events {
		if ev.Type != wire.EventStatus || ev.Usage == nil {
			continue
		}
		if ev.Window == nil || *ev.Window != 1000 || ev.Used == nil || *ev.Used < 250 || ev.Percent == nil || *ev.Percent != *albedo.Percent(ev.Used, ev.Window) {
			t.Errorf("status event = window %v used %v percent %v", ev.Window, ev.Used, ev.Percent)
		}
		if *ev.Usage.InputTokens != 250 || ev.Usage.CachedTokens != nil {
			t.Errorf("usage = %+v", ev.Usage)
		}
		break
	}
	rep, err := r.svc.Context(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.WindowSource != albedo.WindowFromConfig || rep.UsedSource != albedo.UsedFromProvider || rep.Used == nil || *rep.Used < 250 {
		t.Errorf("context = %+v", rep)
	}
}
