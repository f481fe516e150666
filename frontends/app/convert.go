package app

import (
	"cmp"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// session shows a session.
func session(s albedo.Session) wire.Session {
	v := wire.Session{
		ID: s.ID, Workspace: s.Workspace, Provider: s.Provider, Model: s.Model,
		Protocol: string(s.Protocol), Title: s.Title, Name: s.Name, Stage: string(s.Stage),
		ParentID: s.ParentID, Checkpoint: s.Checkpoint, Revision: s.Revision, Archived: s.Archived,
		CreatedAt: s.CreatedAt.UnixMilli(), UpdatedAt: s.UpdatedAt.UnixMilli(),
		Usage: s.Usage, Node: s.Node,
	}
	if s.Effort != "" {
		e := s.Effort
		v.Effort = &e
	}
	return v
}

// sessions shows a list of sessions.
func sessions(list []albedo.Session) []wire.Session {
	out := make([]wire.Session, len(list))
	for i, s := range list {
		out[i] = session(s)
	}
	return out
}

// config shows the editable configuration of a session.
func config(s albedo.Session) wire.Config {
	return wire.Config{
		ID: s.ID, Name: s.Name, Title: s.Title, Workspace: s.Workspace,
		Provider: s.Provider, Model: s.Model, Protocol: string(s.Protocol), Archived: s.Archived, Revision: s.Revision, ETag: wire.ETag(s.Revision),
	}
}

// history shows a transcript as GET /sessions/{id}/history does: a tool
// output is a tool_result whose content holds its result and trace as
// JSON text.
func history(items []albedo.Item) []wire.HistoryItem {
	out := make([]wire.HistoryItem, 0, len(items))
	for _, it := range items {
		h := wire.HistoryItem{
			Seq: it.Seq, Kind: string(it.Kind), Text: it.Text, Source: it.Source,
			Image: it.Image.Meta(), Protocol: string(it.Protocol), Timestamp: it.Timestamp,
		}
		switch it.Kind {
		case albedo.KindToolCall:
			h.CallID, h.Tool, h.Arguments, h.Text = it.CallID, &wire.ToolRef{Name: it.ToolName}, it.Arguments, ""
		case albedo.KindToolImage:
			h.CallID, h.Tool = it.CallID, &wire.ToolRef{Name: it.ToolName}
		case albedo.KindCompaction:
			f := it.Figures()
			h.Text, h.Summary, h.Items, h.TokensBefore, h.TokensAfter = "", it.Text, f.Items, f.TokensBefore, f.TokensAfter
		case albedo.KindToolOutput:
			h.Kind, h.CallID, h.Tool, h.Text = "tool_result", it.CallID, &wire.ToolRef{Name: it.ToolName}, ""
			switch {
			case it.ResultJSON != "" || it.Result != nil:
				// Read for display: stored JSON passes through.
				result, trace := it.ResultJSON, it.TraceJSON
				if result == "" {
					r, _ := json.Marshal(it.Result)
					t, _ := json.Marshal(it.Result.Trace)
					result, trace = string(r), string(t)
				}
				h.Content = []wire.ContentPart{
					{Kind: "json", Field: "result", Value: result},
					{Kind: "json", Field: "trace", Value: cmp.Or(trace, albedo.EmptyTraceJSON)},
				}
			default:
				h.Content = []wire.ContentPart{{Kind: "text", Text: it.Text}}
			}
		}
		out = append(out, h)
	}
	return out
}

// tree shows a page of checkpoints.
func tree(nodes []albedo.TreeNode, more bool) wire.TreePage {
	page := wire.TreePage{Items: make([]wire.TreeItem, len(nodes)), HasMore: more}
	for i, n := range nodes {
		page.Items[i] = wire.TreeItem{ID: n.ID, Type: n.Type, Preview: n.Preview}
	}
	return page
}

// commandResult shows the outcome of a slash command as JSON.
func commandResult(r albedo.CommandResult) (json.RawMessage, error) {
	switch {
	case r.Model != nil:
		return json.Marshal(modelChoice(*r.Model))
	case r.Compact != nil:
		return json.Marshal(wire.CompactResult{Started: r.Compact.Started, Reason: r.Compact.Reason})
	case r.Skill != nil:
		return json.Marshal(wire.SkillStarted{Skill: r.Skill.Skill.Name, Source: r.Skill.Skill.Source, Queued: r.Skill.Queued})
	}
	return nil, errors.New("the command had no outcome")
}

// modelChoice shows the result of /model.
func modelChoice(c albedo.ModelChoice) wire.ModelChoice {
	return wire.ModelChoice{Provider: c.Provider, Model: c.Model, Protocol: string(c.Protocol), Effort: c.Effort}
}

// vent shows a vent with its filing session's name, if any.
func vent(v albedo.Vent) wire.Vent {
	return wire.Vent{
		ID: strconv.FormatInt(v.ID, 10), Title: v.Title, Topic: v.Topic, Status: string(v.Status),
		Message: v.Message, Suggestion: v.Suggestion, SessionID: optional(v.SessionID), SessionName: v.SessionName,
		SessionTitle: v.SessionTitle,
		Workspace:    v.Workspace, Reply: v.Reply, Resolution: v.Resolution,
		ResolvingSessionID: optional(v.ResolvingSessionID), Revision: v.Revision,
		CreatedAt: v.CreatedAt.UnixMilli(), UpdatedAt: v.UpdatedAt.UnixMilli(),
	}
}

// optional is nil for an empty string.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// shown is conv(v), v as the API shows it, for a call that gave v, or the
// call's error.
func shown[T, U any](v T, err error, conv func(T) U) (U, error) {
	if err != nil {
		var zero U
		return zero, err
	}
	return conv(v), nil
}
