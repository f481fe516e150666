package engine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// skillHostCalls are the host calls through which the model reads the
// skills its instructions name: the body and the files of each, the
// user's own included, which its sandbox hides.
func (s *Service) skillHostCalls() []albedo.HostCall {
	return []albedo.HostCall{
		{HostCallDecl: albedo.HostCallDecl{Name: "skills.read", Params: []albedo.HostParam{{Name: "name"}, {Name: "file", Optional: true}},
			Doc: "Returns the instructions of the skill name (its SKILL.md without the front matter),\n" +
				"or, given file (a path from skills.files(name)), the text of that file of the skill."}, Func: s.hostReadSkill},
		{HostCallDecl: albedo.HostCallDecl{Name: "skills.files", Params: []albedo.HostParam{{Name: "name"}},
			Doc: "Lists the files of the skill name, paths relative to its folder."}, Func: s.hostSkillFiles},
	}
}

// skillReader is what reads the skills of a session's workspace, nil when
// the project files offer none.
func (s *Service) skillReader() albedo.SkillReader {
	r, _ := s.projectFiles.(albedo.SkillReader)
	return r
}

// sessionSkills returns the reader of the skills of session id and its
// workspace.
func (s *Service) sessionSkills(ctx context.Context, id string) (albedo.SkillReader, string, error) {
	r := s.skillReader()
	if r == nil {
		return nil, "", albedo.Errorf(albedo.ENotFound, "no skills are offered: project instructions are off")
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return nil, "", err
	}
	return r, sess.Workspace, nil
}

func (s *Service) hostReadSkill(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
	var a struct {
		Name string `json:"name"`
		File string `json:"file"`
	}
	if err := decodeArgs("skills.read", raw, &a); err != nil {
		return nil, err
	}
	r, workspace, err := s.sessionSkills(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	text, err := r.ReadSkill(ctx, workspace, a.Name, a.File)
	if err != nil {
		return nil, err
	}
	return text.Text, nil
}

func (s *Service) hostSkillFiles(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := decodeArgs("skills.files", raw, &a); err != nil {
		return nil, err
	}
	r, workspace, err := s.sessionSkills(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return r.SkillFiles(ctx, workspace, a.Name)
}

// skillArgs are the arguments of /skill.
type skillArgs struct {
	// Skill names the skill.
	Skill string `json:"skill"`
	// Text is what the user typed after it, maybe nothing.
	Text string `json:"text"`
}

// skillCommand starts a skill: it sends the session a message of the
// user's text and the skill's body (albedo.SkillMessage), which starts a
// turn or joins the running one as any message does.
func (s *Service) skillCommand(ctx context.Context, id string, raw json.RawMessage) (albedo.CommandResult, error) {
	var a skillArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return albedo.CommandResult{}, albedo.Errorf(albedo.EInvalid, "/skill takes {\"skill\": name, \"text\"?: text}: %v", err)
	}
	a.Skill = strings.TrimPrefix(strings.TrimSpace(a.Skill), "/")
	if a.Skill == "" {
		return albedo.CommandResult{}, albedo.Errorf(albedo.EInvalid, "/skill needs the name of a skill")
	}
	r, workspace, err := s.sessionSkills(ctx, id)
	if err != nil {
		return albedo.CommandResult{}, err
	}
	body, err := r.ReadSkill(ctx, workspace, a.Skill, "")
	if err != nil {
		return albedo.CommandResult{}, err
	}
	queued, err := s.Send(ctx, id, albedo.Message{Text: albedo.SkillMessage(a.Text, body)})
	if err != nil {
		return albedo.CommandResult{}, err
	}
	return albedo.CommandResult{Skill: &albedo.SkillStarted{Skill: body.Skill, Queued: queued}}, nil
}
