package embedded

import (
	"encoding/json"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/client"
)

// The functions here show domain values as the daemon's API shows them, so
// that an embedded albedo answers exactly what a daemon would.

func sessionOf(s albedo.Session) Session {
	v := Session{
		ID: s.ID, Workspace: s.Workspace, Provider: s.Provider, Model: s.Model,
		Protocol: string(s.Protocol), Title: s.Title, Name: s.Name, Stage: string(s.Stage),
		ParentID: s.ParentID, Checkpoint: s.Checkpoint, Revision: s.Revision,
		CreatedAt: s.CreatedAt.UnixMilli(), UpdatedAt: s.UpdatedAt.UnixMilli(),
	}
	if s.Effort != "" {
		e := s.Effort
		v.Effort = &e
	}
	return v
}

func sessionsOf(list []albedo.Session) []Session {
	out := make([]Session, len(list))
	for i, s := range list {
		out[i] = sessionOf(s)
	}
	return out
}

// etag is the ETag of a revision, as the daemon sends it.
func etag(rev int64) string { return `"` + strconv.FormatInt(rev, 10) + `"` }

func configOf(s albedo.Session) Config {
	return Config{
		ID: s.ID, Name: s.Name, Title: s.Title, Workspace: s.Workspace,
		Provider: s.Provider, Model: s.Model, Protocol: string(s.Protocol), ETag: etag(s.Revision),
	}
}

func eventOf(e albedo.Event) Event {
	out := Event{
		Seq: e.Seq, Type: e.Type, Text: e.Text, Timestamp: e.Timestamp, Source: e.Source,
		CallID: e.CallID, Name: e.Name, Code: e.Code, Result: e.Result, Status: e.Status,
		Kind: e.Kind, Running: e.Running, Image: imageMetaOf(e.Image),
	}
	if e.Trace != nil {
		out.Trace = traceOf(*e.Trace)
	}
	if e.Usage != nil {
		out.Usage = &client.Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens}
	}
	return out
}

func eventsOf(events []albedo.Event) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		out[i] = eventOf(e)
	}
	return out
}

func imageMetaOf(m *albedo.ImageMeta) *client.ImageMeta {
	if m == nil {
		return nil
	}
	return &client.ImageMeta{MimeType: m.MimeType, Width: m.Width, Height: m.Height, Bytes: m.Bytes}
}

func traceOf(t albedo.Trace) *client.Trace {
	out := &client.Trace{Activities: make([]client.Activity, len(t.Activities)), Changes: make([]client.Change, len(t.Changes))}
	for i, a := range t.Activities {
		out.Activities[i] = client.Activity{Kind: a.Kind, Target: a.Target}
	}
	for i, c := range t.Changes {
		out.Changes[i] = client.Change{Path: c.Path, Kind: c.Kind}
	}
	return out
}

// historyOf shows a transcript as GET /sessions/{id}/history does: a tool
// output is a tool_result whose content holds its result and trace as
// JSON text.
func historyOf(items []albedo.Item) []HistoryItem {
	out := make([]HistoryItem, 0, len(items))
	for _, it := range items {
		h := HistoryItem{
			Seq: it.Seq, Kind: string(it.Kind), Text: it.Text, Source: it.Source,
			Image: imageMetaOf(it.Image.Meta()), Protocol: string(it.Protocol), Timestamp: it.Timestamp,
		}
		switch it.Kind {
		case albedo.KindToolCall:
			h.CallID, h.Tool, h.Arguments, h.Text = it.CallID, &client.ToolRef{Name: it.ToolName}, it.Arguments, ""
		case albedo.KindToolOutput:
			h.Kind, h.CallID, h.Tool, h.Text = "tool_result", it.CallID, &client.ToolRef{Name: it.ToolName}, ""
			if it.Result != nil {
				result, _ := json.Marshal(it.Result)
				trace, _ := json.Marshal(it.Result.Trace)
				h.Content = []client.ContentPart{
					{Kind: "json", Field: "result", Value: string(result)},
					{Kind: "json", Field: "trace", Value: string(trace)},
				}
			} else {
				h.Content = []client.ContentPart{{Kind: "text", Text: it.Text}}
			}
		}
		out = append(out, h)
	}
	return out
}

func treeOf(nodes []albedo.TreeNode, more bool) TreePage {
	page := TreePage{Items: make([]TreeItem, len(nodes)), HasMore: more}
	for i, n := range nodes {
		page.Items[i] = TreeItem{ID: n.ID, Type: n.Type, Preview: n.Preview}
	}
	return page
}

func modelChoiceOf(c albedo.ModelChoice) ModelChoice {
	return ModelChoice{Provider: c.Provider, Model: c.Model, Protocol: string(c.Protocol), Effort: c.Effort}
}

// ventOf shows a vent with its filing session's name, if any.
func ventOf(v albedo.Vent, sessionName string) Vent {
	return Vent{
		ID: strconv.FormatInt(v.ID, 10), Title: v.Title, Topic: v.Topic, Status: string(v.Status),
		Message: v.Message, Suggestion: v.Suggestion, SessionID: optional(v.SessionID), SessionName: sessionName,
		Workspace: v.Workspace, Reply: v.Reply, Resolution: v.Resolution,
		ResolvingSessionID: optional(v.ResolvingSessionID), Revision: v.Revision,
		CreatedAt: v.CreatedAt.UnixMilli(), UpdatedAt: v.UpdatedAt.UnixMilli(),
	}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
