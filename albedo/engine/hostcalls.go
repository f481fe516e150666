package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// builtinHostCalls lists what a running cell may ask of albedo itself:
// the vent ledger, the skills and the MCP servers.
func (s *Service) builtinHostCalls() []albedo.HostCall {
	calls := []albedo.HostCall{
		{HostCallDecl: albedo.HostCallDecl{Name: "vent", Params: []albedo.HostParam{{Name: "topic"}, {Name: "message"}, {Name: "suggestion", Optional: true}, {Name: "title", Optional: true}},
			Doc: "Files a vent in albedo's ledger and returns it.\n\n" +
				"topic classifies it (albedo refuses topics it does not know),\n" +
				"message says what went wrong; suggestion and title are optional."}, Func: s.hostVent},
		{HostCallDecl: albedo.HostCallDecl{Name: "vents", Doc: "Returns the newest vents of albedo's ledger, newest first."}, Func: s.hostVents},
		{HostCallDecl: albedo.HostCallDecl{Name: "resolve_vent", Params: []albedo.HostParam{{Name: "id"}, {Name: "note"}},
			Doc: "Resolves vent id with a note saying what fixed it; returns the vent."}, Func: s.hostResolveVent},
	}
	calls = append(calls, s.skillHostCalls()...)
	return append(calls, s.serverHostCalls()...)
}

// pythonName is what a host call or parameter name may be.
var pythonName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pythonKeywords cannot name a Python global or parameter.
var pythonKeywords = strings.Fields("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield")

// builtinHostNames are the names of albedo's own host calls, which a
// program's may not take; "skills" and "mcp" are groups of them.
var builtinHostNames = []string{"vent", "vents", "resolve_vent", "skills", "mcp"}

// CheckHostCalls says what is wrong with host calls a program adds to
// albedo's own (vent, vents, resolve_vent and the groups skills and mcp),
// if anything: a name that is neither a Python identifier nor group.name
// (two of them, a method of the global group) or is given twice, a
// group's name given to a call too, a missing function, a parameter that
// is no identifier, repeated, required after an optional one, or
// collecting keywords without being the last.
func CheckHostCalls(calls []albedo.HostCall) error {
	seen := map[string]bool{}
	for _, name := range builtinHostNames {
		seen[name] = true
	}
	groups := map[string]bool{}
	valid := func(name string) bool { return pythonName.MatchString(name) && !slices.Contains(pythonKeywords, name) }
	for _, c := range calls {
		group, method, dotted := strings.Cut(c.Name, ".")
		switch {
		case !valid(group) || dotted && !valid(method):
			return fmt.Errorf("host call name %q: it must be a Python identifier, or two joined by a dot", c.Name)
		case seen[c.Name] || seen[group] && dotted && !groups[group] || groups[c.Name]:
			return fmt.Errorf("host call %q is given twice", c.Name)
		case c.Func == nil:
			return fmt.Errorf("host call %q has no function", c.Name)
		}
		seen[c.Name] = true
		if dotted {
			seen[group], groups[group] = true, true
		}
		params := map[string]bool{}
		optional := false
		for i, p := range c.Params {
			switch {
			case !valid(p.Name) || params[p.Name]:
				return fmt.Errorf("host call %q: parameter %q must be a Python identifier, given once", c.Name, p.Name)
			case p.Keywords && i != len(c.Params)-1:
				return fmt.Errorf("host call %q: parameter %q collects keywords, so it must be the last", c.Name, p.Name)
			case optional && !p.Optional && !p.Keywords:
				return fmt.Errorf("host call %q: required parameter %q comes after an optional one", c.Name, p.Name)
			}
			params[p.Name], optional = true, p.Optional
		}
	}
	return nil
}

// newHostCalls sets the service's host calls: albedo's own, then the
// program's. New panics on host calls CheckHostCalls refuses.
func (s *Service) newHostCalls(extra []albedo.HostCall) {
	if err := CheckHostCalls(extra); err != nil {
		panic("engine.New: " + err.Error())
	}
	s.hostCalls = make(map[string]albedo.HostFunc)
	for _, c := range append(s.builtinHostCalls(), extra...) {
		s.hostCalls[c.Name] = c.Func
		s.hostCallList = append(s.hostCallList, c.HostCallDecl)
	}
}

// cellHost answers the host calls of a cell of session id.
func (s *Service) cellHost(id string) func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		return s.HostCall(ctx, id, name, args)
	}
}

// HostCall answers a call a running cell makes back into albedo.
func (s *Service) HostCall(ctx context.Context, sessionID, name string, args json.RawMessage) (json.RawMessage, error) {
	f, ok := s.hostCalls[name]
	if !ok {
		return nil, albedo.Errorf(albedo.EInvalid, "albedo has no host call %q", name)
	}
	out, err := f(ctx, sessionID, args)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, albedo.Errorf(albedo.EInternal, "encode answer to %s: %v", name, err)
	}
	return b, nil
}

func modelVent(v albedo.Vent) albedo.ModelVent {
	return albedo.ModelVent{
		ID: v.ID, Topic: v.Topic, Title: v.DisplayTitle(), Message: v.Message, Suggestion: v.Suggestion,
		Status: string(v.Status), SessionID: v.SessionID, Workspace: v.Workspace, Reply: v.Reply,
		Resolution: v.Resolution, ResolvingSessionID: v.ResolvingSessionID,
		CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: v.UpdatedAt.UTC().Format(time.RFC3339),
	}
}

func decodeArgs(name string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return albedo.Errorf(albedo.EInvalid, "%s: bad arguments: %v", name, err)
	}
	return nil
}

func (s *Service) hostVent(ctx context.Context, sessionID string, raw json.RawMessage) (any, error) {
	var a struct {
		Topic      string `json:"topic"`
		Message    string `json:"message"`
		Suggestion string `json:"suggestion"`
		Title      string `json:"title"`
	}
	if err := decodeArgs("vent", raw, &a); err != nil {
		return nil, err
	}
	v, err := s.FileVent(ctx, sessionID, albedo.NewVent(a))
	if err != nil {
		return nil, err
	}
	return modelVent(v), nil
}

func (s *Service) hostVents(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
	vents, _, err := s.VentPage(ctx, 0, modelVentLimit)
	if err != nil {
		return nil, err
	}
	out := make([]albedo.ModelVent, len(vents))
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
	return 0, albedo.Errorf(albedo.EInvalid, "a vent id is a number, not %s", raw)
}
