package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// fakeServers is a ToolServers port whose listing the tests set and
// whose calls a function answers.
type fakeServers struct {
	mu     sync.Mutex
	tools  albedo.ServerTools
	answer func(ctx context.Context, ref albedo.ServerToolRef, args json.RawMessage) (albedo.ServerResult, error)
	calls  []albedo.ServerToolRef
	spaces []string
	asked  []albedo.ServerQuery
}

func (f *fakeServers) Tools(_ context.Context, workspace string) albedo.ServerTools {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spaces = append(f.spaces, workspace)
	return f.tools
}

func (f *fakeServers) TurnTools(ctx context.Context, workspace string) albedo.ServerTools {
	return f.Tools(ctx, workspace)
}

func (f *fakeServers) Call(ctx context.Context, _ string, ref albedo.ServerToolRef, args json.RawMessage) (albedo.ServerResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, ref)
	answer := f.answer
	f.mu.Unlock()
	return answer(ctx, ref, args)
}

func (f *fakeServers) Ask(_ context.Context, _ string, server string, q albedo.ServerQuery) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, q)
	return json.Marshal(map[string]any{"server": server, "kind": q.Kind, "uri": q.URI, "name": q.Name, "arguments": q.Arguments})
}

func (f *fakeServers) set(tools ...albedo.ServerTool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tools = albedo.ServerTools{Tools: tools}
}

// serverTool is a tool of a fake server with an object schema.
func serverTool(server, tool string) albedo.ServerTool {
	return albedo.ServerTool{Ref: albedo.ServerToolRef{Server: server, Tool: tool}, Name: "mcp_" + server + "_" + tool,
		Description: "does " + tool, Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

// TestAServersToolAnswersTheModelsCall: the tools of the workspace's
// servers are offered after python; a call goes to the port and its
// result, of any kind, is the output paired with it, and the turn answers.
func TestAServersToolAnswersTheModelsCall(t *testing.T) {
	picture := tinyPNG(2, 1)
	tests := []struct {
		name       string
		result     albedo.ServerResult
		err        error
		wantText   string
		wantStatus albedo.CellStatus
		wantImages int
	}{
		{"text", albedo.ServerResult{Text: "hello"}, nil, "hello", albedo.CellOK, 0},
		{"the tool's own error", albedo.ServerResult{Text: "no such file", IsError: true}, nil, "error: no such file", albedo.CellError, 0},
		{"a failure of the server", albedo.ServerResult{}, errors.New(`MCP server "fs" did not answer calling read within callTimeoutMs (50)`), `error: MCP server "fs" did not answer calling read within callTimeoutMs (50)`, albedo.CellError, 0},
		{"an image", albedo.ServerResult{Text: "a picture", Images: []albedo.ServerImage{{MimeType: "image/png", Data: picture}}}, nil, "a picture", albedo.CellOK, 1},
		{"an image that is none", albedo.ServerResult{Images: []albedo.ServerImage{{MimeType: "image/svg+xml", Data: []byte("<svg/>")}}}, nil, "[image 1 (image/svg+xml, 6 bytes) not shown: image data is not a PNG, JPEG, GIF or WebP image]", albedo.CellOK, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			servers := &fakeServers{answer: func(context.Context, albedo.ServerToolRef, json.RawMessage) (albedo.ServerResult, error) {
				return tc.result, tc.err
			}}
			servers.set(serverTool("fs", "read"))
			provider := fakes.NewProvider(script(fakes.Text("done"), fakes.Reply{}.WithCall("mcp_fs_read", `{"path":"a"}`)))
			svc := fixtureService(t, provider, fakes.NewKernel(), albedo.ProtocolResponses, func(o *engine.Options) { o.ToolServers = servers })
			workspace := t.TempDir()
			sess := newSessionOf(t, svc, workspace)
			items := turnOf(t, svc, sess.ID, "read a")
			want := []albedo.ItemKind{albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput}
			for range tc.wantImages {
				want = append(want, albedo.KindToolImage)
			}
			equalKinds(t, items, append(want, albedo.KindAssistant, albedo.KindTurn)...)
			call, out := items[1], items[2]
			if out.CallID != call.CallID || out.Text != tc.wantText || out.Result == nil || out.Result.Status != tc.wantStatus {
				t.Errorf("output = %q %+v; want %q, status %s, paired with %s", out.Text, out.Result, tc.wantText, tc.wantStatus, call.CallID)
			}
			if len(servers.calls) != 1 || servers.calls[0] != (albedo.ServerToolRef{Server: "fs", Tool: "read"}) || servers.spaces[0] != workspace {
				t.Errorf("the port got calls %+v in %q", servers.calls, servers.spaces)
			}
			tools := provider.Requests()[0].Tools
			if len(tools) != 2 || tools[0].Name != "python" || tools[1].Name != "mcp_fs_read" || !strings.Contains(tools[1].Description, "fs/read") {
				t.Errorf("tools offered = %+v; want python, then mcp_fs_read", tools)
			}
		})
	}
}

func TestALongResultIsCutToItsHeadAndTailWithAWordOnPython(t *testing.T) {
	long := "HEAD" + strings.Repeat("x", engine.ServerOutputLimit*3) + "TAIL"
	servers := &fakeServers{answer: func(context.Context, albedo.ServerToolRef, json.RawMessage) (albedo.ServerResult, error) {
		return albedo.ServerResult{Text: long}, nil
	}}
	servers.set(serverTool("big", "dump"))
	provider := fakes.NewProvider(script(fakes.Text("done"), fakes.Reply{}.WithCall("mcp_big_dump", `{}`)))
	svc := fixtureService(t, provider, fakes.NewKernel(), albedo.ProtocolChatCompletions, func(o *engine.Options) { o.ToolServers = servers })
	sess := newSessionOf(t, svc, t.TempDir())
	out := turnOf(t, svc, sess.ID, "dump")[2]
	if len(out.Text) > engine.ServerOutputLimit+200 || !strings.HasPrefix(out.Text, "HEAD") || !strings.HasSuffix(out.Text, "TAIL") ||
		!strings.Contains(out.Text, `await mcp.call("big/dump"`) {
		t.Errorf("the output the model reads (%d bytes) is not the head and tail with the Python hint: %.200q", len(out.Text), out.Text)
	}
}

func TestAnInterruptEndsAHangingServerCallAndTheTurnEnds(t *testing.T) {
	started := make(chan struct{})
	servers := &fakeServers{answer: func(ctx context.Context, _ albedo.ServerToolRef, _ json.RawMessage) (albedo.ServerResult, error) {
		close(started)
		<-ctx.Done()
		return albedo.ServerResult{}, errors.New("calling hang on MCP server \"slow\" was interrupted; the request was cancelled")
	}}
	servers.set(serverTool("slow", "hang"))
	provider := fakes.NewProvider(script(fakes.Text("done"), fakes.Reply{}.WithCall("mcp_slow_hang", `{}`)))
	svc := fixtureService(t, provider, fakes.NewKernel(), albedo.ProtocolResponses, func(o *engine.Options) { o.ToolServers = servers })
	sess := newSessionOf(t, svc, t.TempDir())
	if _, err := svc.Send(t.Context(), sess.ID, albedo.Message{Text: "hang"}); err != nil {
		t.Fatal(err)
	}
	<-started
	if err := svc.Interrupt(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Wait(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	items, err := svc.History(t.Context(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := ofKind(items, albedo.KindToolOutput)
	if len(out) != 1 || out[0].Result.Status != albedo.CellInterrupted || !strings.HasPrefix(out[0].Text, "interrupted: ") {
		t.Errorf("outputs = %+v; want the call's interrupted output", out)
	}
}

func TestServersBeyondTheBudgetAreOfferedThroughPythonOnly(t *testing.T) {
	huge := serverTool("huge", "all")
	huge.Parameters = json.RawMessage(`{"type":"object","description":"` + strings.Repeat("d", engine.ServerToolBudget) + `"}`)
	servers := &fakeServers{}
	servers.set(serverTool("small", "one"), huge)
	provider := fakes.NewProvider(script(fakes.Text("done")))
	svc := fixtureService(t, provider, fakes.NewKernel(), albedo.ProtocolResponses, func(o *engine.Options) { o.ToolServers = servers })
	sess := newSessionOf(t, svc, t.TempDir())
	turnOf(t, svc, sess.ID, "hi")
	req := provider.Requests()[0]
	if len(req.Tools) != 2 || req.Tools[1].Name != "mcp_small_one" {
		t.Errorf("tools offered = %d (%v); want python and mcp_small_one", len(req.Tools), req.Tools[len(req.Tools)-1].Name)
	}
	if !strings.Contains(req.Instructions, "The tools of huge are offered through Python only") || !strings.Contains(req.Instructions, `await mcp.tools("huge")`) {
		t.Errorf("the instructions do not say how to reach huge's tools:\n%s", req.Instructions)
	}
}

func TestTheToolSetChangesOnlyBetweenTurnsWithANote(t *testing.T) {
	servers := &fakeServers{answer: func(context.Context, albedo.ServerToolRef, json.RawMessage) (albedo.ServerResult, error) {
		return albedo.ServerResult{Text: "ok"}, nil
	}}
	servers.set(serverTool("s", "one"))
	var provider *fakes.Provider
	n := 0
	provider = fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply {
		n++
		if n == 1 {
			// The listing changes while the turn runs: its next request
			// still offers what its first did.
			servers.set(serverTool("s", "one"), serverTool("s", "two"))
			return fakes.Reply{}.WithCall("mcp_s_one", `{}`)
		}
		return fakes.Text("done")
	})
	svc := fixtureService(t, provider, fakes.NewKernel(), albedo.ProtocolResponses, func(o *engine.Options) { o.ToolServers = servers })
	sess := newSessionOf(t, svc, t.TempDir())
	turnOf(t, svc, sess.ID, "first")
	items := turnOf(t, svc, sess.ID, "second")
	reqs := provider.Requests()
	if len(reqs) != 3 || len(reqs[0].Tools) != 2 || len(reqs[1].Tools) != 2 || len(reqs[2].Tools) != 3 {
		t.Fatalf("tools offered per request = %d requests; want 2, 2, then 3", len(reqs))
	}
	users := ofKind(items, albedo.KindUser)
	last := users[len(users)-1]
	if len(last.Notes) != 1 || !strings.Contains(last.Notes[0], "The MCP tools offered changed") {
		t.Errorf("the second turn's message notes %q; want the change of tools", last.Notes)
	}
	if first := users[0]; len(first.Notes) != 0 {
		t.Errorf("the first turn's message notes %q; want none", first.Notes)
	}
}

func TestWithoutToolServersTheRequestsAreAsBefore(t *testing.T) {
	provider := fakes.NewProvider(script(fakes.Text("done")))
	svc := fixtureService(t, provider, fakes.NewKernel(), albedo.ProtocolResponses, nil)
	sess := newSessionOf(t, svc, t.TempDir())
	turnOf(t, svc, sess.ID, "hi")
	req := provider.Requests()[0]
	if len(req.Tools) != 1 || strings.Contains(req.Instructions, "mcp") {
		t.Errorf("a service without tool servers offers %d tools, instructions mentioning mcp: %v", len(req.Tools), strings.Contains(req.Instructions, "mcp"))
	}
}

func TestCellsCallAndListServerToolsThroughHostCalls(t *testing.T) {
	var got json.RawMessage
	servers := &fakeServers{answer: func(_ context.Context, ref albedo.ServerToolRef, args json.RawMessage) (albedo.ServerResult, error) {
		got = args
		if ref.Tool == "broken" {
			return albedo.ServerResult{}, errors.New("the connection to MCP server \"fs\" was lost calling broken; whether it ran is unknown")
		}
		return albedo.ServerResult{Text: strings.Repeat("y", engine.ServerOutputLimit*2), Raw: json.RawMessage(`{"content":[{"type":"text","text":"y"}],"isError":false}`)}, nil
	}}
	servers.set(serverTool("fs", "read"), serverTool("web", "get"))
	svc := fixtureService(t, fakes.NewProvider(script(fakes.Text("done"))), fakes.NewKernel(), albedo.ProtocolResponses, func(o *engine.Options) { o.ToolServers = servers })
	sess := newSessionOf(t, svc, t.TempDir())
	raw, err := svc.HostCall(t.Context(), sess.ID, "mcp.call", json.RawMessage(`{"tool":"fs/read","arguments":{"path":"a"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res["text"].(string)) != engine.ServerOutputLimit*2 || res["content"] == nil || res["isError"] != false {
		t.Errorf("mcp_call answered %.200s; want the whole result, uncut", raw)
	}
	if string(got) != `{"path":"a"}` {
		t.Errorf("the server got arguments %s", got)
	}
	if _, err := svc.HostCall(t.Context(), sess.ID, "mcp.call", json.RawMessage(`{"tool":"fs/broken"}`)); err == nil || !strings.Contains(err.Error(), "whether it ran is unknown") {
		t.Errorf("a lost call = %v", err)
	}
	if _, err := svc.HostCall(t.Context(), sess.ID, "mcp.call", json.RawMessage(`{"tool":"read"}`)); err == nil || !strings.Contains(err.Error(), `"server/tool"`) {
		t.Errorf("a call naming no server = %v", err)
	}
	raw, err = svc.HostCall(t.Context(), sess.ID, "mcp.tools", json.RawMessage(`{"server":"web"}`))
	if err != nil || !strings.Contains(string(raw), `"tool":"web/get"`) || strings.Contains(string(raw), "fs/read") {
		t.Errorf("mcp_tools of web = %s, %v", raw, err)
	}
}

func TestCellsReachResourcesAndPromptsWhole(t *testing.T) {
	servers := &fakeServers{}
	svc := fixtureService(t, fakes.NewProvider(script(fakes.Text("done"))), fakes.NewKernel(), albedo.ProtocolResponses, func(o *engine.Options) { o.ToolServers = servers })
	sess := newSessionOf(t, svc, t.TempDir())
	tests := []struct {
		call, args, want string
	}{
		{"mcp.resources", `{"server":"fs"}`, `{"arguments":null,"kind":"resources","name":"","server":"fs","uri":""}`},
		{"mcp.read_resource", `{"server":"fs","uri":"file:///a"}`, `{"arguments":null,"kind":"read_resource","name":"","server":"fs","uri":"file:///a"}`},
		{"mcp.prompts", `{"server":"fs"}`, `{"arguments":null,"kind":"prompts","name":"","server":"fs","uri":""}`},
		{"mcp.get_prompt", `{"server":"fs","name":"greet","arguments":{"who":"x"}}`, `{"arguments":{"who":"x"},"kind":"get_prompt","name":"greet","server":"fs","uri":""}`},
	}
	for _, tc := range tests {
		raw, err := svc.HostCall(t.Context(), sess.ID, tc.call, json.RawMessage(tc.args))
		if err != nil || string(raw) != tc.want {
			t.Errorf("%s(%s) = %s, %v; want %s", tc.call, tc.args, raw, err, tc.want)
		}
	}
}

func TestWithoutToolServersCellsHaveNoMCPCalls(t *testing.T) {
	svc := fixtureService(t, fakes.NewProvider(script(fakes.Text("done"))), fakes.NewKernel(), albedo.ProtocolResponses, nil)
	sess := newSessionOf(t, svc, t.TempDir())
	if _, err := svc.HostCall(t.Context(), sess.ID, "mcp.call", json.RawMessage(`{"tool":"a/b"}`)); err == nil || !strings.Contains(err.Error(), "no host call") {
		t.Errorf("mcp.call without tool servers = %v; want no such host call", err)
	}
}

func TestAServerNotListedInTimeIsNamedInTheInstructionsAndOfferedTheNextTurn(t *testing.T) {
	servers := &fakeServers{}
	servers.mu.Lock()
	servers.tools = albedo.ServerTools{Tools: []albedo.ServerTool{serverTool("quick", "one")}, Pending: []string{"late"},
		Problems: []string{`MCP server "late" had not listed its tools within listWaitMs (5000)`}}
	servers.mu.Unlock()
	provider := fakes.NewProvider(script(fakes.Text("done"), fakes.Text("done")))
	svc := fixtureService(t, provider, fakes.NewKernel(), albedo.ProtocolResponses, func(o *engine.Options) { o.ToolServers = servers })
	sess := newSessionOf(t, svc, t.TempDir())
	turnOf(t, svc, sess.ID, "first")
	first := provider.Requests()[0]
	if len(first.Tools) != 2 || first.Tools[1].Name != "mcp_quick_one" {
		t.Errorf("first turn's tools = %d; want python and mcp_quick_one", len(first.Tools))
	}
	if !strings.Contains(first.Instructions, "The tools of late are not listed yet") || !strings.Contains(first.Instructions, `await mcp.tools("late")`) {
		t.Errorf("the instructions do not name the server not listed yet:\n%s", first.Instructions)
	}
	servers.set(serverTool("late", "two"), serverTool("quick", "one"))
	items := turnOf(t, svc, sess.ID, "second")
	second := provider.Requests()[1]
	if len(second.Tools) != 3 || second.Tools[1].Name != "mcp_late_two" || strings.Contains(second.Instructions, "not listed yet") {
		t.Errorf("second turn's tools = %d, instructions:\n%s", len(second.Tools), second.Instructions)
	}
	users := ofKind(items, albedo.KindUser)
	if notes := users[len(users)-1].Notes; !strings.Contains(strings.Join(notes, "\n"), "MCP tools offered changed") {
		t.Errorf("the second turn's message notes %q; want the tool set's change", notes)
	}
}
