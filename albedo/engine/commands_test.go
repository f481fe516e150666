package engine_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func ptr[T any](v T) *T { return &v }

func TestSwitchModelRefusals(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session(respProvider)
	tests := []struct {
		name     string
		id       string
		provider string
		model    string
		effort   *string
		code     string
	}{
		{"empty model", sess.ID, "", "", nil, albedo.EInvalid},
		{"blank model", sess.ID, chatProvider, "  ", nil, albedo.EInvalid},
		{"unknown provider", sess.ID, "nobody", "m", nil, albedo.EConflict},
		{"bad effort", sess.ID, "", "m", ptr("extreme"), albedo.EInvalid},
		{"unknown session", "nope", "", "m", nil, albedo.ENotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.svc.SwitchModel(r.ctx, tc.id, tc.provider, tc.model, tc.effort)
			wantCode(t, err, tc.code)
		})
	}
	if got := r.get(sess.ID); got.Revision != sess.Revision {
		t.Errorf("refused switches changed the session: %+v", got)
	}
	if got := r.config.ActiveModels(); len(got) != 0 {
		t.Errorf("refused switches changed the config: %+v", got)
	}
}

func TestSwitchModelBusy(t *testing.T) {
	r := newRig(t, script(fakes.Text("x"), fakes.Hang()))
	sess := r.session("")
	r.send(sess.ID, "go")
	waitFor(t, "the request to be in flight", func() bool { return r.provider.RequestCount() == 1 })
	_, err := r.svc.SwitchModel(r.ctx, sess.ID, chatProvider, "m", nil)
	wantCode(t, err, albedo.EBusy)
	_, err = r.svc.RunCommand(r.ctx, sess.ID, "/model", json.RawMessage(`{"model":"m"}`))
	wantCode(t, err, albedo.EBusy)
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
}

func TestSwitchModelAcrossProtocols(t *testing.T) {
	r := newRig(t, script(fakes.Text("answer"), fakes.Python("print(1)").WithReasoning("hmm"), fakes.Text("printed")))
	sess := r.session(respProvider)
	r.turn(sess.ID, "first")

	choice, err := r.svc.SwitchModel(r.ctx, sess.ID, chatProvider, " chat-large ", ptr("high"))
	if err != nil {
		t.Fatal(err)
	}
	want := albedo.ModelChoice{Provider: chatProvider, Model: "chat-large", Protocol: albedo.ProtocolChatCompletions, Effort: ptr("high")}
	if choice.Provider != want.Provider || choice.Model != want.Model || choice.Protocol != want.Protocol || choice.Effort == nil || *choice.Effort != "high" {
		t.Fatalf("choice = %+v", choice)
	}
	got := r.get(sess.ID)
	if got.Provider != chatProvider || got.Model != "chat-large" || got.Protocol != albedo.ProtocolChatCompletions || got.Effort != "high" {
		t.Errorf("session = %+v", got)
	}
	if active := r.config.ActiveModels(); !slices.Equal(active, []fakes.ActiveModel{{Provider: chatProvider, Model: "chat-large"}}) {
		t.Errorf("config changes = %+v", active)
	}
	cfg, _ := r.config.Load(r.ctx)
	if cfg.Active != chatProvider || cfg.Providers[chatProvider].Model != "chat-large" {
		t.Errorf("config = %+v", cfg)
	}

	r.turn(sess.ID, "second")
	reqs := r.provider.Requests()
	last := reqs[len(reqs)-1]
	if ep := last.Endpoint; ep.Provider != chatProvider || ep.Model != "chat-large" || ep.Protocol != albedo.ProtocolChatCompletions || ep.Effort != "high" {
		t.Errorf("endpoint = %+v", ep)
	}
	msgs := decodeInput(t, last.Input)
	var roles []string
	for _, m := range msgs {
		if m.Type != "" {
			t.Errorf("chat request carries a Responses item: %+v", m)
		}
		roles = append(roles, m.Role)
	}
	if wantRoles := []string{"user", "assistant", "tool", "assistant", "user"}; !slices.Equal(roles, wantRoles) {
		t.Errorf("roles = %v, want %v", roles, wantRoles)
	}

	// Switching back keeps the effort unless told otherwise, and clears it
	// when told "".
	choice, err = r.svc.SwitchModel(r.ctx, sess.ID, respProvider, "resp-2", nil)
	if err != nil || choice.Protocol != albedo.ProtocolResponses || choice.Effort == nil || *choice.Effort != "high" {
		t.Fatalf("switch back = %+v, %v", choice, err)
	}
	choice, err = r.svc.SwitchModel(r.ctx, sess.ID, "", "resp-3", ptr(""))
	if err != nil || choice.Provider != respProvider || choice.Effort != nil {
		t.Fatalf("clear effort = %+v, %v", choice, err)
	}
}

func TestRunCommand(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session(respProvider)
	if got := r.svc.Commands(); !slices.Equal(got, []string{"/compact", "/model", "/skill"}) {
		t.Errorf("Commands = %v", got)
	}
	tests := []struct {
		name    string
		command string
		args    string
		code    string
		want    string // in the error message
	}{
		{"unknown command", "/frobnicate", `{}`, albedo.EInvalid, "/model"},
		{"bad arguments", "/model", `{"model":3}`, albedo.EInvalid, "/model arguments"},
		{"no arguments", "/model", ``, albedo.EInvalid, "model name"},
		{"null arguments", "/model", `null`, albedo.EInvalid, "model name"},
		{"bad effort", "/model", `{"model":"m","effort":"max"}`, albedo.EInvalid, "effort"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.svc.RunCommand(r.ctx, sess.ID, tc.command, json.RawMessage(tc.args))
			wantCode(t, err, tc.code)
			if !strings.Contains(albedo.ErrorMessage(err), tc.want) {
				t.Errorf("message %q does not mention %q", albedo.ErrorMessage(err), tc.want)
			}
		})
	}
	out, err := r.svc.RunCommand(r.ctx, sess.ID, "/model", json.RawMessage(`{"provider":"chat","model":"c2","effort":"low"}`))
	if err != nil {
		t.Fatal(err)
	}
	effort := "low"
	want := albedo.ModelChoice{Provider: "chat", Model: "c2", Protocol: albedo.ProtocolChatCompletions, Effort: &effort}
	if out.Model == nil || !reflect.DeepEqual(*out.Model, want) || out.Compact != nil {
		t.Errorf("/model result = %+v; want %+v", out, want)
	}
}

func TestCreateSession(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	root := t.TempDir()
	file := writeFile(t, root, "file.txt")
	tests := []struct {
		name      string
		workspace string
		provider  string
		code      string
	}{
		{"empty workspace", "", "", albedo.EInvalid},
		{"relative workspace", "work", "", albedo.EInvalid},
		{"missing workspace", filepath.Join(root, "missing"), "", albedo.EInvalid},
		{"file workspace", file, "", albedo.EInvalid},
		{"unknown provider", root, "nobody", albedo.ENoProvider},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.svc.CreateSession(r.ctx, tc.workspace, tc.provider)
			wantCode(t, err, tc.code)
		})
	}
	sess, err := r.svc.CreateSession(r.ctx, root+"/./", chatProvider)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Workspace != root || sess.Provider != chatProvider || sess.Model != "chat-model" || sess.Protocol != albedo.ProtocolChatCompletions ||
		sess.Title != albedo.DefaultTitle || sess.Stage != albedo.StageIdle || sess.Revision != 1 || sess.ID == "" {
		t.Errorf("session = %+v", sess)
	}
	if stored := r.get(sess.ID); stored.ID != sess.ID || stored.Revision != 1 {
		t.Errorf("stored = %+v", stored)
	}
}

func TestCreateSessionWithoutProvider(t *testing.T) {
	tests := []struct {
		name   string
		config *fakes.Config
	}{
		{"no providers", fakes.NewConfig("")},
		{"no active provider", fakes.NewConfig("", albedo.ProviderConfig{Name: "p", Model: "m", Protocol: albedo.ProtocolResponses})},
		{"active provider gone", fakes.NewConfig("gone", albedo.ProviderConfig{Name: "p", Model: "m", Protocol: albedo.ProtocolResponses})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("x")))
			r.config = tc.config
			r.svc = r.newService()
			_, err := r.svc.CreateSession(r.ctx, r.workspace, "")
			wantCode(t, err, albedo.ENoProvider)
			if !strings.Contains(albedo.ErrorMessage(err), "/login") {
				t.Errorf("message %q does not mention /login", albedo.ErrorMessage(err))
			}
		})
	}
}

func TestRenameAndListSessions(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	a := r.session("")
	r.clock.Advance(1000)
	b := r.session(chatProvider)
	rename := func(id string, revision int64, name string) (albedo.Session, error) {
		return r.svc.Configure(r.ctx, id, revision, albedo.Configuration{Name: &name})
	}

	_, err := rename(a.ID, a.Revision+1, "stale")
	wantCode(t, err, albedo.EStale)
	_, err = rename(a.ID, a.Revision, strings.Repeat("n", 101))
	wantCode(t, err, albedo.EInvalid)
	_, err = rename("nope", 1, "x")
	wantCode(t, err, albedo.ENotFound)
	renamed, err := rename(a.ID, a.Revision, "  my session  ")
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Name != "my session" || renamed.Revision != a.Revision+1 {
		t.Errorf("renamed = %+v", renamed)
	}
	list, err := r.svc.Sessions(r.ctx)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Errorf("sessions = %+v, %v; want the renamed one first", list, err)
	}
	for _, f := range []func() error{
		func() error { _, err := r.svc.History(r.ctx, "nope"); return err },
		func() error { _, err := r.svc.Running(r.ctx, "nope"); return err },
		func() error { _, err := r.svc.Tail(r.ctx, "nope", 0); return err },
		func() error { _, err := r.svc.Tail(r.ctx, "nope", 5); return err },
		func() error { _, _, err := r.svc.Tree(r.ctx, "nope", 0, 0); return err },
		func() error { _, err := r.svc.Subscribe(r.ctx, "nope"); return err },
	} {
		wantCode(t, f(), albedo.ENotFound)
	}
}
