package daemon

import (
	"encoding/json"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
)

// sessionView is a session as the API shows it.
type sessionView struct {
	ID         string          `json:"id"`
	Session    string          `json:"session"`
	Workspace  string          `json:"workspace"`
	Provider   string          `json:"provider"`
	Model      string          `json:"model"`
	Protocol   albedo.Protocol `json:"protocol"`
	Effort     *string         `json:"effort"`
	Title      string          `json:"title"`
	Name       string          `json:"name"`
	Stage      albedo.Stage    `json:"stage"`
	ParentID   string          `json:"parent_id,omitempty"`
	Checkpoint int64           `json:"checkpoint,omitempty"`
	Revision   int64           `json:"revision"`
	CreatedAt  int64           `json:"created_at"`
	UpdatedAt  int64           `json:"updated_at"`
}

func viewSession(s albedo.Session) sessionView {
	v := sessionView{
		ID: s.ID, Session: s.ID, Workspace: s.Workspace, Provider: s.Provider, Model: s.Model,
		Protocol: s.Protocol, Title: s.Title, Name: s.Name, Stage: s.Stage,
		ParentID: s.ParentID, Checkpoint: s.Checkpoint, Revision: s.Revision,
		CreatedAt: s.CreatedAt.UnixMilli(), UpdatedAt: s.UpdatedAt.UnixMilli(),
	}
	if s.Effort != "" {
		e := s.Effort
		v.Effort = &e
	}
	return v
}

// configView is the editable configuration of a session.
type configView struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Title     string          `json:"title"`
	Workspace string          `json:"workspace"`
	Provider  string          `json:"provider"`
	Model     string          `json:"model"`
	Protocol  albedo.Protocol `json:"protocol"`
	Revision  int64           `json:"revision"`
}

func viewConfig(s albedo.Session) configView {
	return configView{ID: s.ID, Name: s.Name, Title: s.Title, Workspace: s.Workspace, Provider: s.Provider, Model: s.Model, Protocol: s.Protocol, Revision: s.Revision}
}

// historyEntry is one transcript item in GET /history.
type historyEntry struct {
	Seq       int64             `json:"seq"`
	Kind      string            `json:"kind"`
	Text      string            `json:"text,omitempty"`
	Source    string            `json:"source,omitempty"`
	Image     *albedo.ImageMeta `json:"image,omitempty"`
	CallID    string            `json:"call_id,omitempty"`
	Tool      *toolRef          `json:"tool,omitempty"`
	Arguments string            `json:"arguments,omitempty"`
	Content   []contentPart     `json:"content,omitempty"`
	Protocol  albedo.Protocol   `json:"protocol,omitempty"`
	Timestamp int64             `json:"timestamp"`
}

type toolRef struct {
	Name string `json:"name"`
}

// contentPart is one part of a tool result: JSON text or plain text.
type contentPart struct {
	Kind  string `json:"kind"`
	Field string `json:"field,omitempty"`
	Value string `json:"value,omitempty"`
	Text  string `json:"text,omitempty"`
}

func viewHistory(items []albedo.Item) []historyEntry {
	out := make([]historyEntry, 0, len(items))
	for _, it := range items {
		e := historyEntry{Seq: it.Seq, Kind: string(it.Kind), Text: it.Text, Source: it.Source, Image: it.Image.Meta(), Protocol: it.Protocol, Timestamp: it.Timestamp}
		switch it.Kind {
		case albedo.KindToolCall:
			e.CallID, e.Tool, e.Arguments, e.Text = it.CallID, &toolRef{it.ToolName}, it.Arguments, ""
		case albedo.KindToolOutput:
			e.Kind, e.CallID, e.Tool, e.Text = "tool_result", it.CallID, &toolRef{it.ToolName}, ""
			if it.Result != nil {
				result, _ := json.Marshal(it.Result)
				trace, _ := json.Marshal(it.Result.Trace)
				e.Content = []contentPart{{Kind: "json", Field: "result", Value: string(result)}, {Kind: "json", Field: "trace", Value: string(trace)}}
			} else {
				e.Content = []contentPart{{Kind: "text", Text: it.Text}}
			}
		}
		out = append(out, e)
	}
	return out
}

// ventView is a vent as the API shows it: its id is a string.
type ventView struct {
	ID                 string  `json:"id"`
	Title              string  `json:"title"`
	Topic              string  `json:"topic"`
	Status             string  `json:"status"`
	Message            string  `json:"message"`
	Suggestion         string  `json:"suggestion"`
	SessionID          *string `json:"session_id"`
	SessionName        string  `json:"session_name,omitempty"`
	Workspace          string  `json:"workspace"`
	Reply              string  `json:"reply"`
	Resolution         string  `json:"resolution"`
	ResolvingSessionID *string `json:"resolving_session_id"`
	Revision           int64   `json:"revision"`
	CreatedAt          int64   `json:"created_at"`
	UpdatedAt          int64   `json:"updated_at"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func viewVent(v albedo.Vent, sessionName string) ventView {
	return ventView{
		ID: strconv.FormatInt(v.ID, 10), Title: v.Title, Topic: v.Topic, Status: string(v.Status),
		Message: v.Message, Suggestion: v.Suggestion, SessionID: optional(v.SessionID), SessionName: sessionName,
		Workspace: v.Workspace, Reply: v.Reply, Resolution: v.Resolution,
		ResolvingSessionID: optional(v.ResolvingSessionID), Revision: v.Revision,
		CreatedAt: v.CreatedAt.UnixMilli(), UpdatedAt: v.UpdatedAt.UnixMilli(),
	}
}
