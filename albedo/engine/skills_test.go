package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// skillFiles offers skills, each with a body and one file.
type skillFiles struct {
	skills []albedo.Skill
	bodies map[string]string
}

func (f *skillFiles) Instructions(context.Context, string) (albedo.InstructionSet, error) {
	return albedo.InstructionSet{Skills: f.skills}, nil
}

func (f *skillFiles) find(name string) (albedo.Skill, error) {
	for _, s := range f.skills {
		if s.Name == name {
			return s, nil
		}
	}
	return albedo.Skill{}, albedo.Errorf(albedo.ENotFound, "no skill is named %s", name)
}

func (f *skillFiles) ReadSkill(_ context.Context, _ string, name, file string) (albedo.SkillText, error) {
	s, err := f.find(name)
	if err != nil {
		return albedo.SkillText{}, err
	}
	if file != "" {
		return albedo.SkillText{Skill: s, Text: "file " + file + " of " + name}, nil
	}
	return albedo.SkillText{Skill: s, Text: f.bodies[name]}, nil
}

func (f *skillFiles) SkillFiles(_ context.Context, _ string, name string) ([]string, error) {
	if _, err := f.find(name); err != nil {
		return nil, err
	}
	return []string{"SKILL.md", "ref.md"}, nil
}

func newSkillRig(t *testing.T, provider *fakes.Provider) (*rig, *skillFiles) {
	t.Helper()
	files := &skillFiles{
		skills: []albedo.Skill{
			{Name: "mine", Description: "the user's own", Source: "ALBEDO_HOME/skills/mine/SKILL.md"},
			{Name: "lint", Description: "lints the code", Source: ".agents/skills/lint/SKILL.md"},
			{Name: "deploy", Description: "ships it", Source: ".claude/skills/deploy/SKILL.md"},
		},
		bodies: map[string]string{"mine": "BODY-MINE", "lint": "BODY-LINT", "deploy": "BODY-DEPLOY\n"},
	}
	r := newRig(t, nil)
	r.provider = provider
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: r.store, Provider: provider, Kernel: r.kernel, Config: r.config, Clock: r.clock, ProjectInstructions: files})
	t.Cleanup(func() { svc.Close(context.Background()) })
	r.svc = svc
	return r, files
}

// TestSkillsAreNamedNotSent: the instructions name each skill with its
// description, the same bytes in every request of a session; no body
// reaches a request until the model reads it.
func TestSkillsAreNamedNotSent(t *testing.T) {
	provider := fakes.NewProvider(script(fakes.Text("ok"), fakes.Python("1")))
	r, _ := newSkillRig(t, provider)
	sess := r.session("")
	r.turn(sess.ID, "first")
	r.turn(sess.ID, "second")
	reqs := provider.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for _, want := range []string{"- deploy: ships it\n- lint: lints the code\n- mine: the user's own\n</skills>", "await skills.read(name)"} {
		if !strings.Contains(reqs[0].Instructions, want) {
			t.Errorf("the instructions lack %q:\n%s", want, reqs[0].Instructions)
		}
	}
	for i, req := range reqs {
		if req.Instructions != reqs[0].Instructions {
			t.Errorf("request %d's instructions differ from the first's", i+1)
		}
		raw, _ := json.Marshal(req.Input)
		if strings.Contains(req.Instructions+string(raw), "BODY-") {
			t.Errorf("request %d carries a skill's body", i+1)
		}
	}
	rep, err := r.svc.Context(r.ctx, sess.ID)
	if err != nil || len(rep.Skills) != 3 || rep.Skills[0].Name != "mine" {
		t.Errorf("the context report's skills = %+v, %v; want the three offered", rep.Skills, err)
	}
}

func TestSkillsAreReadThroughHostCalls(t *testing.T) {
	r, _ := newSkillRig(t, fakes.NewProvider(script(fakes.Text("ok"))))
	sess := r.session("")
	tests := []struct{ call, args, want string }{
		{"skills.read", `{"name":"mine"}`, `"BODY-MINE"`},
		{"skills.read", `{"name":"lint","file":"ref.md"}`, `"file ref.md of lint"`},
		{"skills.files", `{"name":"deploy"}`, `["SKILL.md","ref.md"]`},
		{"skills.read", `{"name":"nope"}`, "error: no skill is named nope"},
		{"skills.read", `{"name":3}`, "error: skills.read: bad arguments"},
	}
	for _, tt := range tests {
		raw, err := r.svc.HostCall(r.ctx, sess.ID, tt.call, json.RawMessage(tt.args))
		if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s(%s) = %s, %v; want the error %q", tt.call, tt.args, raw, err, want)
			}
			continue
		}
		if err != nil || string(raw) != tt.want {
			t.Errorf("%s(%s) = %s, %v; want %s", tt.call, tt.args, raw, err, tt.want)
		}
	}
}

// TestSkillCommandSendsTheBodyWithTheMessage: /skill sends the user's text
// with the skill's body, which then reaches the model.
func TestSkillCommandSendsTheBodyWithTheMessage(t *testing.T) {
	provider := fakes.NewProvider(script(fakes.Text("ok")))
	r, _ := newSkillRig(t, provider)
	sess := r.session("")
	tests := []struct{ args, want string }{
		{`{"skill":"deploy","text":"ship v2"}`, "ship v2\n\n<skill name=\"deploy\" source=\".claude/skills/deploy/SKILL.md\">\nBODY-DEPLOY\n</skill>"},
		{`{"skill":"/mine"}`, "/mine\n\n<skill name=\"mine\" source=\"ALBEDO_HOME/skills/mine/SKILL.md\">\nBODY-MINE\n</skill>"},
	}
	for _, tt := range tests {
		res, err := r.svc.RunCommand(r.ctx, sess.ID, "/skill", json.RawMessage(tt.args))
		if err != nil || res.Skill == nil || res.Skill.Queued {
			t.Fatalf("/skill %s = %+v, %v", tt.args, res, err)
		}
		r.waitIdle(sess.ID)
		reqs := provider.Requests()
		if got := lastUserText(t, reqs[len(reqs)-1].Input); got != tt.want {
			t.Errorf("/skill %s sent %q, want %q", tt.args, got, tt.want)
		}
	}
	for _, args := range []string{`{"skill":"nope"}`, `{}`, `{"skill":"../x"}`} {
		_, err := r.svc.RunCommand(r.ctx, sess.ID, "/skill", json.RawMessage(args))
		if err == nil {
			t.Errorf("/skill %s was accepted", args)
		}
	}
}
