package albedo

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// hostCallTable lists what a running cell may ask of albedo.
func (s *Service) hostCallTable() map[string]HostFunc {
	return map[string]HostFunc{
		"vent":         s.hostVent,
		"vents":        s.hostVents,
		"resolve_vent": s.hostResolveVent,
	}
}

// HostCall answers a call a running cell makes back into albedo.
func (s *Service) HostCall(ctx context.Context, sessionID, name string, args json.RawMessage) (json.RawMessage, error) {
	f, ok := s.hostCalls[name]
	if !ok {
		return nil, Errorf(EInvalid, "albedo has no host call %q", name)
	}
	out, err := f(ctx, sessionID, args)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, Errorf(EInternal, "encode answer to %s: %v", name, err)
	}
	return b, nil
}

// ModelVent is a vent as a cell sees it: plain values, an integer id.
type ModelVent struct {
	ID                 int64  `json:"id"`
	Topic              string `json:"topic"`
	Title              string `json:"title"`
	Message            string `json:"message"`
	Suggestion         string `json:"suggestion"`
	Status             string `json:"status"`
	SessionID          string `json:"session_id"`
	Workspace          string `json:"workspace"`
	Reply              string `json:"reply"`
	Resolution         string `json:"resolution"`
	ResolvingSessionID string `json:"resolving_session_id"`
	CreatedAt          string `json:"created_at"`
	UpdatedAt          string `json:"updated_at"`
}

func modelVent(v Vent) ModelVent {
	return ModelVent{
		ID: v.ID, Topic: v.Topic, Title: v.displayTitle(), Message: v.Message, Suggestion: v.Suggestion,
		Status: string(v.Status), SessionID: v.SessionID, Workspace: v.Workspace, Reply: v.Reply,
		Resolution: v.Resolution, ResolvingSessionID: v.ResolvingSessionID,
		CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: v.UpdatedAt.UTC().Format(time.RFC3339),
	}
}

func decodeArgs(name string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return Errorf(EInvalid, "%s: bad arguments: %v", name, err)
	}
	return nil
}

func (s *Service) hostVent(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
	var a struct {
		Topic      string  `json:"topic"`
		Message    string  `json:"message"`
		Suggestion *string `json:"suggestion"`
		Title      *string `json:"title"`
	}
	if err := decodeArgs("vent", raw, &a); err != nil {
		return nil, err
	}
	n := NewVent{Topic: a.Topic, Message: a.Message}
	if a.Suggestion != nil {
		n.Suggestion = *a.Suggestion
	}
	if a.Title != nil {
		n.Title = *a.Title
	}
	v, err := s.FileVent(ctx, sessionID, n)
	if err != nil {
		return nil, err
	}
	return modelVent(v), nil
}

func (s *Service) hostVents(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
	vents, err := s.Vents(ctx, 0, modelVentLimit)
	if err != nil {
		return nil, err
	}
	out := make([]ModelVent, len(vents))
	for i, v := range vents {
		out[i] = modelVent(v)
	}
	return out, nil
}

func (s *Service) hostResolveVent(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
	var a struct {
		ID   json.RawMessage `json:"id"`
		Note string          `json:"note"`
	}
	if err := decodeArgs("resolve_vent", raw, &a); err != nil {
		return nil, err
	}
	id, err := ventID(a.ID)
	if err != nil {
		return nil, err
	}
	v, err := s.ResolveVent(ctx, sessionID, id, a.Note)
	if err != nil {
		return nil, err
	}
	return modelVent(v), nil
}

// ventID accepts a vent id as a JSON number or a numeric string.
func ventID(raw json.RawMessage) (int64, error) {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return n, nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		if n, err := strconv.ParseInt(str, 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, Errorf(EInvalid, "a vent id is a number, not %s", raw)
}
