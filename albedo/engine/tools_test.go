package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// silent is a tool handler that answers nothing.
func silent(context.Context, albedo.ToolCall) (string, error) { return "", nil }

func TestCheckTools(t *testing.T) {
	tool := func(name, params string) albedo.ToolDef {
		return albedo.ToolDef{Tool: albedo.Tool{Name: name, Parameters: json.RawMessage(params)}, Handler: silent}
	}
	tests := []struct {
		name  string
		tools []albedo.ToolDef
		want  string // "" for none
	}{
		{"none", nil, ""},
		{"two of the program's", []albedo.ToolDef{tool("clock", `{"type":"object"}`), tool("read-file_2", "")}, ""},
		{"python again", []albedo.ToolDef{tool("python", "")}, `tool "python" is registered twice`},
		{"one name twice", []albedo.ToolDef{tool("clock", ""), tool("clock", "")}, `tool "clock" is registered twice`},
		{"a blank name", []albedo.ToolDef{tool("", "")}, `tool name "": a tool name is`},
		{"a space in the name", []albedo.ToolDef{tool("the clock", "")}, `tool name "the clock"`},
		{"no handler", []albedo.ToolDef{{Tool: albedo.Tool{Name: "clock"}}}, `tool "clock" has no handler`},
		{"parameters that are no object", []albedo.ToolDef{tool("clock", `[1]`)}, `tool "clock": its parameters must be a JSON Schema object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := engine.CheckTools(tc.tools)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("CheckTools = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCheckHostCalls(t *testing.T) {
	f := func(context.Context, string, json.RawMessage) (any, error) { return nil, nil }
	call := func(name string, params ...albedo.HostParam) albedo.HostCall {
		return albedo.HostCall{HostCallDecl: albedo.HostCallDecl{Name: name, Params: params}, Func: f}
	}
	tests := []struct {
		name  string
		calls []albedo.HostCall
		want  string
	}{
		{"none", nil, ""},
		{"one with an optional parameter", []albedo.HostCall{call("stamp", albedo.HostParam{Name: "label"}, albedo.HostParam{Name: "zone", Optional: true})}, ""},
		{"one of albedo's", []albedo.HostCall{call("vent")}, `host call "vent" is given twice`},
		{"not an identifier", []albedo.HostCall{call("2stamp")}, `host call name "2stamp"`},
		{"a keyword", []albedo.HostCall{call("await")}, `host call name "await"`},
		{"no function", []albedo.HostCall{{HostCallDecl: albedo.HostCallDecl{Name: "stamp"}}}, `host call "stamp" has no function`},
		{"a parameter twice", []albedo.HostCall{call("stamp", albedo.HostParam{Name: "a"}, albedo.HostParam{Name: "a"})}, `parameter "a" must be`},
		{"a bad parameter", []albedo.HostCall{call("stamp", albedo.HostParam{Name: "a-b"})}, `parameter "a-b" must be`},
		{"a group of two", []albedo.HostCall{call("jira.find"), call("jira.open")}, ""},
		{"albedo's group skills", []albedo.HostCall{call("skills.mine")}, `host call "skills.mine" is given twice`},
		{"albedo's group as a call", []albedo.HostCall{call("skills")}, `host call "skills" is given twice`},
		{"a group named like a call", []albedo.HostCall{call("jira"), call("jira.find")}, `host call "jira.find" is given twice`},
		{"a call named like a group", []albedo.HostCall{call("jira.find"), call("jira")}, `host call "jira" is given twice`},
		{"three names", []albedo.HostCall{call("a.b.c")}, `host call name "a.b.c"`},
		{"a keyword method", []albedo.HostCall{call("jira.import")}, `host call name "jira.import"`},
		{"required after optional", []albedo.HostCall{call("stamp", albedo.HostParam{Name: "a", Optional: true}, albedo.HostParam{Name: "b"})}, `required parameter "b" comes after an optional one`},
		{"albedo's group mcp", []albedo.HostCall{call("mcp.mine")}, `host call "mcp.mine" is given twice`},
		{"keywords last, after an optional one", []albedo.HostCall{call("stamp", albedo.HostParam{Name: "a", Optional: true}, albedo.HostParam{Name: "rest", Keywords: true})}, ""},
		{"keywords before another", []albedo.HostCall{call("stamp", albedo.HostParam{Name: "rest", Keywords: true}, albedo.HostParam{Name: "b"})}, `parameter "rest" collects keywords, so it must be the last`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := engine.CheckHostCalls(tc.calls)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("CheckHostCalls = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestAProgramsToolAnswersItsCalls: a registered tool's handler gets the
// call and its text is the output the model reads; an error or a panic
// becomes an error output, paired with the call all the same.
func TestAProgramsToolAnswersItsCalls(t *testing.T) {
	tests := []struct {
		name       string
		handler    albedo.ToolHandler
		wantText   string
		wantStatus albedo.CellStatus
	}{
		{"an answer", func(context.Context, albedo.ToolCall) (string, error) { return "12:00", nil }, "12:00", albedo.CellOK},
		{"an error", func(context.Context, albedo.ToolCall) (string, error) { return "", errors.New("no clock here") }, "error: no clock here", albedo.CellError},
		{"a panic", func(context.Context, albedo.ToolCall) (string, error) { panic("broken") }, "error: the clock tool failed inside albedo: broken", albedo.CellError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []albedo.ToolCall
			handler := func(ctx context.Context, call albedo.ToolCall) (string, error) {
				got = append(got, call)
				return tc.handler(ctx, call)
			}
			provider := fakes.NewProvider(script(fakes.Text("done"), fakes.Reply{}.WithCall("clock", `{"zone":"UTC"}`)))
			kernel := fakes.NewKernel()
			svc := fixtureService(t, provider, kernel, albedo.ProtocolResponses, func(o *engine.Options) {
				o.Tools = []albedo.ToolDef{{Tool: albedo.Tool{Name: "clock", Description: "The time."}, Handler: handler}}
			})
			workspace := t.TempDir()
			sess := newSessionOf(t, svc, workspace)
			items := turnOf(t, svc, sess.ID, "time?")
			equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindAssistant, albedo.KindTurn)
			call, out := items[1], items[2]
			if out.CallID != call.CallID || out.ToolName != "clock" || out.Text != tc.wantText || out.Result == nil || out.Result.Status != tc.wantStatus {
				t.Errorf("output = %q %q %q %+v, want %q paired with call %q, status %q", out.CallID, out.ToolName, out.Text, out.Result, tc.wantText, call.CallID, tc.wantStatus)
			}
			want := albedo.ToolCall{SessionID: sess.ID, Workspace: workspace, CallID: call.CallID, Name: "clock", Arguments: `{"zone":"UTC"}`}
			if len(got) != 1 || got[0] != want {
				t.Errorf("the handler got %+v, want %+v", got, want)
			}
			if len(kernel.Cells()) != 0 {
				t.Errorf("the kernel ran %d cells for a call of another tool", len(kernel.Cells()))
			}
			reqs := provider.Requests()
			if len(reqs[0].Tools) != 2 || reqs[0].Tools[0].Name != "python" || reqs[0].Tools[1].Name != "clock" || !strings.Contains(string(reqs[0].Tools[1].Parameters), `"object"`) {
				t.Errorf("tools offered = %+v, want python, then clock with an object schema", reqs[0].Tools)
			}
		})
	}
}
