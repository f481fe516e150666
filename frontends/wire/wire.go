// Package wire shows albedo's domain values in the shapes of its HTTP API,
// as the types of frontends/client. The daemon serves them; an embedded
// albedo returns them; so both answer exactly alike.
package wire

import (
	"encoding/json"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/client"
)

// Session shows a session.
func Session(s albedo.Session) client.Session {
	v := client.Session{
		ID: s.ID, Workspace: s.Workspace, Provider: s.Provider, Model: s.Model,
		Protocol: string(s.Protocol), Title: s.Title, Name: s.Name, Stage: string(s.Stage),
		ParentID: s.ParentID, Checkpoint: s.Checkpoint, Revision: s.Revision, Archived: s.Archived,
		CreatedAt: s.CreatedAt.UnixMilli(), UpdatedAt: s.UpdatedAt.UnixMilli(),
	}
	if s.Effort != "" {
		e := s.Effort
		v.Effort = &e
	}
	return v
}

// Sessions shows a list of sessions.
func Sessions(list []albedo.Session) []client.Session {
	out := make([]client.Session, len(list))
	for i, s := range list {
		out[i] = Session(s)
	}
	return out
}

// ETag is the ETag of a revision, as the daemon sends it.
func ETag(rev int64) string { return `"` + strconv.FormatInt(rev, 10) + `"` }

// Config shows the editable configuration of a session.
func Config(s albedo.Session) client.Config {
	return client.Config{
		ID: s.ID, Name: s.Name, Title: s.Title, Workspace: s.Workspace,
		Provider: s.Provider, Model: s.Model, Protocol: string(s.Protocol), Archived: s.Archived, Revision: s.Revision, ETag: ETag(s.Revision),
	}
}

// Event shows an event.
func Event(e albedo.Event) client.Event {
	out := client.Event{
		Seq: e.Seq, Type: e.Type, Text: e.Text, Timestamp: e.Timestamp, Source: e.Source,
		CallID: e.CallID, Name: e.Name, Code: e.Code, Result: e.Result, Status: e.Status,
		Kind: e.Kind, Running: e.Running, Image: imageMeta(e.Image), QueueID: e.QueueID,
	}
	if e.Trace != nil {
		out.Trace = trace(*e.Trace)
	}
	if e.Usage != nil {
		u := e.Usage
		out.Usage = &client.Usage{InputTokens: u.InputTokens, CachedTokens: u.CachedTokens, OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens}
	}
	return out
}

// Events shows a list of events.
func Events(events []albedo.Event) []client.Event {
	out := make([]client.Event, len(events))
	for i, e := range events {
		out[i] = Event(e)
	}
	return out
}

// imageMeta shows an image by its metadata alone.
func imageMeta(m *albedo.ImageMeta) *client.ImageMeta {
	if m == nil {
		return nil
	}
	return &client.ImageMeta{MimeType: m.MimeType, Width: m.Width, Height: m.Height, Bytes: m.Bytes}
}

// trace shows the files a cell touched.
func trace(t albedo.Trace) *client.Trace {
	out := &client.Trace{Activities: make([]client.Activity, len(t.Activities)), Changes: make([]client.Change, len(t.Changes))}
	for i, a := range t.Activities {
		out.Activities[i] = client.Activity{Kind: a.Kind, Target: a.Target}
	}
	for i, c := range t.Changes {
		out.Changes[i] = client.Change{Path: c.Path, Kind: c.Kind}
	}
	return out
}

// History shows a transcript as GET /sessions/{id}/history does: a tool
// output is a tool_result whose content holds its result and trace as
// JSON text.
func History(items []albedo.Item) []client.HistoryItem {
	out := make([]client.HistoryItem, 0, len(items))
	for _, it := range items {
		h := client.HistoryItem{
			Seq: it.Seq, Kind: string(it.Kind), Text: it.Text, Source: it.Source,
			Image: imageMeta(it.Image.Meta()), Protocol: string(it.Protocol), Timestamp: it.Timestamp,
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

// Tree shows a page of checkpoints.
func Tree(nodes []albedo.TreeNode, more bool) client.TreePage {
	page := client.TreePage{Items: make([]client.TreeItem, len(nodes)), HasMore: more}
	for i, n := range nodes {
		page.Items[i] = client.TreeItem{ID: n.ID, Type: n.Type, Preview: n.Preview}
	}
	return page
}

// ModelChoice shows the result of /model.
func ModelChoice(c albedo.ModelChoice) client.ModelChoice {
	return client.ModelChoice{Provider: c.Provider, Model: c.Model, Protocol: string(c.Protocol), Effort: c.Effort}
}

// Vent shows a vent with its filing session's name, if any.
func Vent(v albedo.Vent) client.Vent {
	return client.Vent{
		ID: strconv.FormatInt(v.ID, 10), Title: v.Title, Topic: v.Topic, Status: string(v.Status),
		Message: v.Message, Suggestion: v.Suggestion, SessionID: optional(v.SessionID), SessionName: v.SessionName,
		Workspace: v.Workspace, Reply: v.Reply, Resolution: v.Resolution,
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
