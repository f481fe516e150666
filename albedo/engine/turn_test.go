package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestTurnCallsPythonThenAnswers(t *testing.T) {
	tests := []struct {
		provider string
		protocol albedo.Protocol
		model    string
	}{
		{respProvider, albedo.ProtocolResponses, "resp-model"},
		{chatProvider, albedo.ProtocolChatCompletions, "chat-model"},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("bye"),
				fakes.Python("print(6*7)").WithReasoning("multiply"),
				fakes.Text("42"),
			))
			sess := r.session(tc.provider)
			if sess.Title != albedo.DefaultTitle || sess.Stage != albedo.StageIdle || sess.Protocol != tc.protocol || sess.Model != tc.model {
				t.Fatalf("new session = %+v", sess)
			}
			gate := fakes.NewGate()
			r.provider.SetGate(gate)

			msg := "compute the answer\nplease"
			if queued := r.send(sess.ID, msg); queued {
				t.Fatal("first message was queued")
			}
			if running, err := r.svc.Running(r.ctx, sess.ID); err != nil || !running {
				t.Fatalf("Running after send = %v, %v", running, err)
			}
			if got := r.get(sess.ID); got.Stage != albedo.StageRunning || got.Title != engine.Title(msg) {
				t.Fatalf("running session = stage %q title %q", got.Stage, got.Title)
			}
			<-gate.Entered()
			gate.Open()
			r.waitIdle(sess.ID)

			items := r.history(sess.ID)
			equalKinds(t, items, albedo.KindUser, albedo.KindReasoning, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindAssistant, albedo.KindTurn)
			user, reasoning, call, out, answer, marker := items[0], items[1], items[2], items[3], items[4], items[5]
			if user.Text != msg || user.Source != "" {
				t.Errorf("user item = %+v", user)
			}
			if reasoning.Text != "multiply" || reasoning.Protocol != tc.protocol || len(reasoning.Raw) == 0 {
				t.Errorf("reasoning item = %+v", reasoning)
			}
			if call.CallID != "fixture-call-1" || call.ToolName != "python" || albedo.CallCode(call) != "print(6*7)" || call.Protocol != tc.protocol {
				t.Errorf("call item = %+v", call)
			}
			if out.CallID != call.CallID || out.Result == nil || out.Result.Status != albedo.CellOK || out.Result.Output != "ran cell 1\n" {
				t.Errorf("output item = %+v", out)
			}
			if answer.Text != "42" || marker.Text != albedo.TurnFinished {
				t.Errorf("answer %q, marker %q", answer.Text, marker.Text)
			}
			for i, it := range items {
				if it.Seq != int64(i+1) {
					t.Errorf("item %d has seq %d", i, it.Seq)
				}
				if it.Timestamp < 1_700_000_000_000 || (i > 0 && it.Timestamp < items[i-1].Timestamp) {
					t.Errorf("item %d timestamp %d is not a plausible, ordered Unix ms time", i, it.Timestamp)
				}
			}

			events, err := r.svc.Tail(r.ctx, sess.ID, 100)
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, ev := range events {
				types = append(types, ev.Type)
				raw, _ := json.Marshal(ev)
				var fields map[string]json.RawMessage
				if err := json.Unmarshal(raw, &fields); err != nil {
					t.Fatal(err)
				}
				var ms int64
				if err := json.Unmarshal(fields["timestamp"], &ms); err != nil || ms <= 0 {
					t.Errorf("event %s timestamp %s is not an integer of milliseconds", ev.Type, fields["timestamp"])
				}
			}
			want := []string{wire.EventUser, wire.EventThinking, wire.EventToolCall, wire.EventTool, wire.EventMessage, wire.EventTurn}
			if !slices.Equal(types, want) {
				t.Fatalf("event types = %v, want %v", types, want)
			}
			if ev := events[3]; ev.Code != "print(6*7)" || ev.Status != string(albedo.CellOK) || ev.Trace == nil || ev.CallID != "fixture-call-1" {
				t.Errorf("tool event = %+v", ev)
			}
			if ev := events[5]; ev.Status != albedo.TurnFinished {
				t.Errorf("turn event = %+v", ev)
			}

			reqs := r.provider.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for _, req := range reqs {
				ep := req.Endpoint
				if ep.Provider != tc.provider || ep.Model != tc.model || ep.Protocol != tc.protocol || ep.APIKey == "" || ep.BaseURL == "" {
					t.Errorf("endpoint = %+v", ep)
				}
				if !strings.HasPrefix(req.Instructions, albedo.DefaultInstructions+"\n\n<environment>\n") || len(req.Tools) != 1 || req.Tools[0].Name != "python" {
					t.Errorf("request instructions/tools = %q / %+v", req.Instructions, req.Tools)
				}
			}
			if got := outputsIn(t, reqs[1].Input)["fixture-call-1"]; !strings.Contains(got, "ran cell 1") {
				t.Errorf("second request carries output %q", got)
			}
			replayed := strings.Contains(string(reqs[1].Input[1]), `"encrypted_content"`)
			if want := tc.protocol == albedo.ProtocolResponses; replayed != want {
				t.Errorf("reasoning replayed = %v, want %v: %s", replayed, want, reqs[1].Input[1])
			}
			cells := r.kernel.Cells()
			if len(cells) != 1 || cells[0].Code != "print(6*7)" || cells[0].SessionID != sess.ID || cells[0].Workspace != r.workspace || cells[0].Timeout != engine.DefaultCellTimeout {
				t.Errorf("cells = %+v", cells)
			}
			if got := r.get(sess.ID); got.Stage != albedo.StageIdle || !got.KernelUsed {
				t.Errorf("finished session = stage %q kernelUsed %v", got.Stage, got.KernelUsed)
			}

			r.turn(sess.ID, "thanks")
			if got := r.get(sess.ID).Title; got != "thanks" {
				t.Errorf("title after second turn = %q", got)
			}
		})
	}
}

func TestToolCallArguments(t *testing.T) {
	tests := []struct {
		name      string
		reply     fakes.Reply
		wantCell  bool
		timeout   time.Duration
		wantError string
	}{
		{"default timeout", fakes.Python("1"), true, engine.DefaultCellTimeout, ""},
		{"own timeout", fakes.Reply{}.WithCall("python", `{"code":"1","timeout_ms":1500}`), true, 1500 * time.Millisecond, ""},
		{"capped timeout", fakes.Reply{}.WithCall("python", `{"code":"1","timeout_ms":999999999999}`), true, 24 * time.Hour, ""},
		{"no code", fakes.Reply{}.WithCall("python", `{"timeout_ms":5}`), false, 0, "arguments must be"},
		{"not json", fakes.Reply{}.WithCall("python", `print(1)`), false, 0, "arguments must be"},
		{"unknown tool", fakes.Reply{}.WithCall("shell", `{"cmd":"ls"}`), false, 0, `unknown tool "shell"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("done"), tc.reply))
			sess := r.session("")
			r.turn(sess.ID, "go")
			items := r.history(sess.ID)
			equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindAssistant, albedo.KindTurn)
			cells := r.kernel.Cells()
			if tc.wantCell {
				if len(cells) != 1 || cells[0].Timeout != tc.timeout {
					t.Fatalf("cells = %+v, want one with timeout %v", cells, tc.timeout)
				}
				return
			}
			if len(cells) != 0 {
				t.Fatalf("cells = %+v, want none", cells)
			}
			res := items[2].Result
			if res == nil || res.Status != albedo.CellError || !strings.Contains(res.Error, tc.wantError) {
				t.Fatalf("output = %+v, want error containing %q", res, tc.wantError)
			}
		})
	}
}

func TestMessagesSentDuringCellJoinNextRequest(t *testing.T) {
	r := newRig(t, script(fakes.Text("all done"), fakes.Python("slow()")))
	gate := fakes.NewGate()
	r.kernel.SetGate(gate)
	sess := r.session("")
	r.send(sess.ID, "start")
	<-gate.Entered()

	later := []string{"first aside", "second aside", "third aside"}
	for _, text := range later {
		if queued := r.send(sess.ID, text); !queued {
			t.Fatalf("message %q sent during a cell was not queued", text)
		}
	}
	if n := r.provider.RequestCount(); n != 1 {
		t.Fatalf("%d requests while the cell runs, want 1", n)
	}
	gate.Open()
	r.waitIdle(sess.ID)

	items := r.history(sess.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput,
		albedo.KindUser, albedo.KindUser, albedo.KindUser, albedo.KindAssistant, albedo.KindTurn)
	for i, text := range later {
		if items[3+i].Text != text {
			t.Errorf("user item %d = %q, want %q", 3+i, items[3+i].Text, text)
		}
	}
	reqs := r.provider.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	in := decodeInput(t, reqs[1].Input)
	n := len(in)
	if n < 4 || in[n-4].Type != "function_call_output" {
		t.Fatalf("second request does not have the output before the queued messages: %s", reqs[1].Input)
	}
	for i, text := range later {
		if m := in[n-3+i]; m.Role != "user" || m.text() != text {
			t.Errorf("input %d = %+v, want user %q", n-3+i, m, text)
		}
	}
	if got := r.get(sess.ID).Title; got != "third aside" {
		t.Errorf("title = %q, want the latest message", got)
	}
	if q, err := r.store.Queued(r.ctx, sess.ID); err != nil || len(q) != 0 {
		t.Errorf("queue after the turn = %v, %v", q, err)
	}
}

func TestNoCeilingOnToolRounds(t *testing.T) {
	const rounds = 105
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		outputs := 0
		for _, m := range req.Input {
			if strings.Contains(string(m), `"function_call_output"`) {
				outputs++
			}
		}
		if outputs < rounds {
			return fakes.Python("step()")
		}
		return fakes.Text("finally")
	})
	sess := r.session("")
	r.turn(sess.ID, "loop")
	if n := r.provider.RequestCount(); n != rounds+1 {
		t.Errorf("%d requests, want %d", n, rounds+1)
	}
	items := r.history(sess.ID)
	if n := len(ofKind(items, albedo.KindToolOutput)); n != rounds {
		t.Errorf("%d outputs, want %d", n, rounds)
	}
	if n := len(r.kernel.Cells()); n != rounds {
		t.Errorf("%d cells, want %d", n, rounds)
	}
	if last := items[len(items)-1]; last.Kind != albedo.KindTurn || last.Text != albedo.TurnFinished {
		t.Errorf("last item = %+v", last)
	}
	checkPaired(t, items)
}

func TestInterruptBlockedCell(t *testing.T) {
	r := newRig(t, script(fakes.Text("fresh answer"),
		fakes.Python("while True: pass").WithPython("print('second')"),
	))
	gate := r.kernel.BlockUntilCancelled()
	sess := r.session("")
	r.send(sess.ID, "spin")
	<-gate.Entered()
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if running, _ := r.svc.Running(r.ctx, sess.ID); running {
		t.Fatal("session still running after Interrupt returned")
	}
	items := r.history(sess.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindToolOutput, albedo.KindTurn)
	for _, out := range items[3:5] {
		if out.Result == nil || out.Result.Status != albedo.CellInterrupted {
			t.Errorf("output %+v is not interrupted", out)
		}
	}
	if items[5].Text != albedo.TurnInterrupted {
		t.Errorf("marker = %q", items[5].Text)
	}
	if n := len(r.kernel.Cells()); n != 1 {
		t.Errorf("%d cells ran, want only the blocked one", n)
	}
	checkPaired(t, items)
	if got := r.get(sess.ID); got.Stage != albedo.StageIdle {
		t.Errorf("stage = %q", got.Stage)
	}

	r.kernel.SetGate(nil)
	r.turn(sess.ID, "again")
	items = r.history(sess.ID)
	if last := items[len(items)-1]; last.Text != albedo.TurnFinished || items[len(items)-2].Text != "fresh answer" {
		t.Fatalf("second turn ended with %+v", items[len(items)-2:])
	}
	checkPaired(t, items)
}

func TestInterruptBlockedRequest(t *testing.T) {
	hang := fakes.Reply{Text: "partial answ", Hang: true}
	tests := []struct {
		name    string
		replies []fakes.Reply
		want    []albedo.ItemKind
	}{
		{"first request", []fakes.Reply{hang},
			[]albedo.ItemKind{albedo.KindUser, albedo.KindTurn}},
		{"after a tool round", []fakes.Reply{fakes.Python("1"), hang},
			[]albedo.ItemKind{albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindTurn}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("recovered"), tc.replies...))
			sess := r.session("")
			r.send(sess.ID, "think hard")
			waitFor(t, "the hanging request to be in flight", func() bool { return r.provider.RequestCount() == len(tc.replies) })
			if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
				t.Fatal(err)
			}
			if running, _ := r.svc.Running(r.ctx, sess.ID); running {
				t.Fatal("still running")
			}
			items := r.history(sess.ID)
			equalKinds(t, items, tc.want...)
			if last := items[len(items)-1]; last.Text != albedo.TurnInterrupted {
				t.Errorf("marker = %q", last.Text)
			}
			checkPaired(t, items)
			if got := r.get(sess.ID).Stage; got != albedo.StageIdle {
				t.Errorf("stage = %q", got)
			}
			r.turn(sess.ID, "try again")
			items = r.history(sess.ID)
			equalKinds(t, items, append(tc.want, albedo.KindUser, albedo.KindAssistant, albedo.KindTurn)...)
			checkPaired(t, items)
		})
	}
}

func TestInterruptIdleSessionDoesNothing(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session("")
	if err := r.svc.Interrupt(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if items := r.history(sess.ID); len(items) != 0 {
		t.Fatalf("history = %+v", items)
	}
	wantCode(t, r.svc.Interrupt(r.ctx, "nope"), albedo.ENotFound)
}

func TestProviderErrorFailsTurn(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"domain error", fmt.Errorf("wrapped: %w", albedo.Errorf(albedo.EUnauthorized, "the API key was refused")), "the API key was refused"},
		{"plain error", errors.New("connection reset by peer"), "connection reset by peer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("fine now"), fakes.Fail(tc.err)))
			sess := r.session("")
			r.turn(sess.ID, "hello")
			items := r.history(sess.ID)
			equalKinds(t, items, albedo.KindUser, albedo.KindError, albedo.KindTurn)
			if !strings.Contains(items[1].Text, tc.want) {
				t.Errorf("error item %q does not contain %q", items[1].Text, tc.want)
			}
			if items[2].Text != albedo.TurnFailed {
				t.Errorf("marker = %q", items[2].Text)
			}
			if got := r.get(sess.ID); got.Stage != albedo.StageIdle {
				t.Errorf("stage = %q", got.Stage)
			}
			r.turn(sess.ID, "again")
			if items := r.history(sess.ID); items[len(items)-1].Text != albedo.TurnFinished {
				t.Errorf("retry ended with %+v", items[len(items)-1])
			}
		})
	}
}

func TestTextBeforeAProviderFailureIsKeptMarkedPartial(t *testing.T) {
	r := newRig(t, script(fakes.Reply{Reasoning: "planning", Text: "The answer is", Err: albedo.Errorf(albedo.EProvider, "provider failed mid-stream: overloaded")}))
	sess := r.session("")
	r.turn(sess.ID, "hello")
	items := r.history(sess.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindReasoning, albedo.KindAssistant, albedo.KindError, albedo.KindTurn)
	if items[2].Text != "The answer is" || items[2].Flags != albedo.FlagPartial || items[1].Flags != albedo.FlagPartial {
		t.Errorf("kept %+v and %+v", items[1], items[2])
	}
	if !strings.Contains(items[3].Text, "overloaded") {
		t.Errorf("error item %q", items[3].Text)
	}
	ev := albedo.EventOf(items[2], "")
	if ev.Type != wire.EventMessage || !ev.Partial || ev.Notice != albedo.PartialNotice {
		t.Errorf("event of the partial text = %+v", ev)
	}
}

func TestEventsShowRefusalsAndCutAnswers(t *testing.T) {
	tests := []struct {
		name  string
		item  albedo.Item
		check func(albedo.Event) bool
	}{
		{"refusal", albedo.Item{Kind: albedo.KindAssistant, Text: "I can't help with that.", Flags: albedo.FlagRefusal},
			func(e albedo.Event) bool {
				return e.Type == "message" && e.Refusal && e.Text == "I can't help with that." && e.Notice == ""
			}},
		{"truncated", albedo.Item{Kind: albedo.KindAssistant, Text: `{"`, Flags: albedo.FlagTruncated},
			func(e albedo.Event) bool {
				return e.Truncated && e.Notice == "answer cut: the model hit its output limit"
			}},
		{"commentary", albedo.Item{Kind: albedo.KindAssistant, Text: "Checking.", Flags: albedo.FlagCommentary},
			func(e albedo.Event) bool { return e.Phase == "commentary" && !e.Truncated }},
		{"note", albedo.Item{Kind: albedo.KindNote, Text: "searched the web for “news”", ToolName: "web_search_call"},
			func(e albedo.Event) bool {
				return e.Type == "note" && e.Name == "web_search_call" && e.Text == "searched the web for “news”"
			}},
		{"whole answer", albedo.Item{Kind: albedo.KindAssistant, Text: "fine"},
			func(e albedo.Event) bool {
				return !e.Refusal && !e.Truncated && !e.Partial && e.Notice == "" && e.Phase == ""
			}},
	}
	for _, tt := range tests {
		if ev := albedo.EventOf(tt.item, ""); !tt.check(ev) {
			t.Errorf("%s: event %+v", tt.name, ev)
		}
	}
}

func TestVanishedProviderFailsUntilSwitch(t *testing.T) {
	r := newRig(t, script(fakes.Text("answered")))
	sess := r.session(respProvider)
	r.config.RemoveProvider(respProvider)
	r.turn(sess.ID, "hello")
	items := r.history(sess.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindError, albedo.KindTurn)
	if !strings.Contains(items[1].Text, `"`+respProvider+`"`) || items[2].Text != albedo.TurnFailed {
		t.Fatalf("failure = %q / %q", items[1].Text, items[2].Text)
	}
	if n := r.provider.RequestCount(); n != 0 {
		t.Fatalf("%d requests sent to a vanished provider", n)
	}
	if _, err := r.svc.SwitchModel(r.ctx, sess.ID, chatProvider, "chat-2", nil); err != nil {
		t.Fatal(err)
	}
	r.turn(sess.ID, "hello again")
	reqs := r.provider.Requests()
	if len(reqs) != 1 || reqs[0].Endpoint.Provider != chatProvider || reqs[0].Endpoint.Model != "chat-2" || reqs[0].Endpoint.Protocol != albedo.ProtocolChatCompletions {
		t.Fatalf("requests after switch = %+v", reqs)
	}
	if items := r.history(sess.ID); items[len(items)-1].Text != albedo.TurnFinished {
		t.Fatalf("turn after switch ended with %+v", items[len(items)-1])
	}
}

func TestProviderProtocolChangeFollowsConfig(t *testing.T) {
	r := newRig(t, script(fakes.Text("ok")))
	sess := r.session(respProvider)
	r.turn(sess.ID, "one")
	if err := r.config.SaveProvider(r.ctx, albedo.ProviderConfig{Name: respProvider, BaseURL: "http://x.invalid", Model: "m", Protocol: albedo.ProtocolChatCompletions}, false); err != nil {
		t.Fatal(err)
	}
	r.turn(sess.ID, "two")
	reqs := r.provider.Requests()
	if got := reqs[len(reqs)-1].Endpoint; got.Protocol != albedo.ProtocolChatCompletions || got.Model != "resp-model" {
		t.Errorf("endpoint after config change = %+v", got)
	}
	if got := r.get(sess.ID).Protocol; got != albedo.ProtocolChatCompletions {
		t.Errorf("session protocol = %q", got)
	}
	for _, m := range decodeInput(t, reqs[len(reqs)-1].Input) {
		if m.Type != "" {
			t.Errorf("chat request carries a Responses item %+v", m)
		}
	}
}

func TestSendRefusals(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session("")
	tests := []struct {
		name string
		id   string
		msg  albedo.Message
		code string
	}{
		{"empty", sess.ID, albedo.Message{Text: "  \n"}, albedo.EInvalid},
		{"too large", sess.ID, albedo.Message{Text: strings.Repeat("a", engine.MaxMessageBytes+1)}, albedo.EInvalid},
		{"unknown session", "nope", albedo.Message{Text: "hi"}, albedo.ENotFound},
		{"bad image", sess.ID, albedo.Message{Text: "hi", Image: &albedo.ImageInput{MimeType: "image/png", Data: seedPNG, Width: 9, Height: 3, Bytes: 24}}, albedo.EImageMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.svc.Send(r.ctx, tc.id, tc.msg)
			wantCode(t, err, tc.code)
		})
	}
	if items := r.history(sess.ID); len(items) != 0 {
		t.Errorf("refused messages were recorded: %+v", items)
	}
	if q, _ := r.store.Queued(r.ctx, sess.ID); len(q) != 0 {
		t.Errorf("refused messages were queued: %+v", q)
	}
	if got := r.get(sess.ID); got.Title != albedo.DefaultTitle || got.Revision != sess.Revision {
		t.Errorf("refused messages changed the session: %+v", got)
	}
}

func TestSendImageReachesModel(t *testing.T) {
	for _, provider := range []string{respProvider, chatProvider} {
		t.Run(provider, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("a tiny png")))
			sess := r.session(provider)
			img := &albedo.ImageInput{MimeType: "image/png", Data: seedPNG, Width: 2, Height: 3, Bytes: 24}
			if _, err := r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: "what is this?", Image: img}); err != nil {
				t.Fatal(err)
			}
			r.waitIdle(sess.ID)
			items := r.history(sess.ID)
			if items[0].Image == nil || items[0].Image.Bytes != 24 || len(items[0].Image.Data) != 24 {
				t.Fatalf("user item image = %+v", items[0].Image)
			}
			input := string(r.provider.Requests()[0].Input[0])
			if !strings.Contains(input, `"data:image/png;base64,`+seedPNG+`"`) {
				t.Errorf("request input %s lacks the data URL", input)
			}
			ev := displayEvents(items)[0]
			if ev.Image == nil || *ev.Image != (albedo.ImageMeta{MimeType: "image/png", Width: 2, Height: 3, Bytes: 24}) {
				t.Errorf("user event image = %+v", ev.Image)
			}
		})
	}
}

func TestWaitCoversQueuedContinuation(t *testing.T) {
	r := newRig(t, script(fakes.Text("answered both"), fakes.Python("slow()")))
	gate := fakes.NewGate()
	r.kernel.SetGate(gate)
	sess := r.session("")
	r.send(sess.ID, "first")
	<-gate.Entered()
	r.send(sess.ID, "second")

	short, cancel := context.WithCancel(r.ctx)
	cancel()
	if err := r.svc.Wait(short, sess.ID); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context = %v", err)
	}
	wantCode(t, r.svc.Wait(r.ctx, "nope"), albedo.ENotFound)

	done := make(chan error, 1)
	go func() { done <- r.svc.Wait(r.ctx, sess.ID) }()
	gate.Open()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Wait did not return")
	}
	if running, _ := r.svc.Running(r.ctx, sess.ID); running {
		t.Fatal("Wait returned while the session runs")
	}
	items := r.history(sess.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindUser, albedo.KindAssistant, albedo.KindTurn)
	if err := r.svc.Wait(r.ctx, sess.ID); err != nil {
		t.Fatalf("Wait on an idle session = %v", err)
	}
}

// A message sent just as a turn ends either joins that turn or starts the
// next one; it is never left waiting in the queue of an idle session.
func TestMessageSentAsTurnEndsIsNeverStranded(t *testing.T) {
	r := newRig(t, script(fakes.Text("ok")))
	sess := r.session("")
	for i := range 50 {
		r.send(sess.ID, fmt.Sprintf("first %d", i))
		r.send(sess.ID, fmt.Sprintf("second %d", i))
		r.waitIdle(sess.ID)
		if q, err := r.store.Queued(r.ctx, sess.ID); err != nil || len(q) != 0 {
			t.Fatalf("round %d: idle session has queued %+v (%v)", i, q, err)
		}
		items := r.history(sess.ID)
		users := ofKind(items, albedo.KindUser)
		if last := users[len(users)-1]; last.Text != fmt.Sprintf("second %d", i) {
			t.Fatalf("round %d: last user item %q", i, last.Text)
		}
		if last := items[len(items)-1]; last.Kind != albedo.KindTurn || items[len(items)-2].Kind != albedo.KindAssistant {
			t.Fatalf("round %d: transcript ends with %+v", i, items[len(items)-2:])
		}
	}
}

// More sessions than albedo keeps in memory each keep their own
// transcript across turns.
func TestManySessionsKeepTheirTranscripts(t *testing.T) {
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		return fakes.Text(fmt.Sprintf("answer to %d messages", len(req.Input)))
	})
	const n = 40
	ids := make([]string, n)
	for i := range ids {
		ids[i] = r.session("").ID
		r.turn(ids[i], fmt.Sprintf("session %d, first", i))
	}
	for i, id := range ids {
		r.turn(id, fmt.Sprintf("session %d, second", i))
		reqs := r.provider.Requests()
		texts := userTexts(t, reqs[len(reqs)-1].Input)
		want := []string{fmt.Sprintf("session %d, first", i), fmt.Sprintf("session %d, second", i)}
		if !slices.Equal(texts, want) {
			t.Fatalf("session %d sent %q, want %q", i, texts, want)
		}
		sub, err := r.svc.Subscribe(r.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(sub.Snapshot), len(r.history(id)); got != want || want != 6 {
			t.Fatalf("session %d: snapshot of %d events, history of %d items, want 6", i, got, want)
		}
		sub.Close()
	}
}
