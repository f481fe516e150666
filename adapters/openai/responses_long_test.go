package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// decodeResponses decodes a Responses body read through r with a decoder
// that tune adjusts, and returns the outcome and the decoder.
func decodeResponses(r io.Reader, log *slog.Logger, tune func(*responsesDecoder)) (outcome, *responsesDecoder) {
	var out outcome
	n := 0
	d := newResponsesDecoder(albedo.Endpoint{Provider: "long", Protocol: albedo.ProtocolResponses},
		func(x albedo.Delta) { out.Deltas = append(out.Deltas, x) }, log)
	d.newID = func() string { n++; return fmt.Sprintf("call_gen%d", n) }
	if tune != nil {
		tune(d)
	}
	events := newSSEReader(r)
	events.streamAbove = d.streamAbove()
	reply, err := decode(context.Background(), events, d)
	out.Reply = reply
	if err != nil {
		out.Err = err.Error()
	}
	return out, d
}

// tiny makes every data line a streamed one and every string value over
// 16 bytes a long one, so that the bounded path decodes everything.
func tiny(d *responsesDecoder) { d.longEvent, d.longString = 1, 16 }

// walkedOnly leaves data lines whole but walks every event for long
// strings over 16 bytes.
func walkedOnly(d *responsesDecoder) { d.longEvent, d.longString = 1<<30, 16 }

// sameOutcome fails unless got decodes to what want does: the same items
// (a Raw compared by the JSON it sends), deltas and error.
func sameOutcome(t *testing.T, label string, got, want outcome) {
	t.Helper()
	if got.Err != want.Err {
		t.Fatalf("%s: error %q, want %q", label, got.Err, want.Err)
	}
	if !reflect.DeepEqual(got.Deltas, want.Deltas) {
		t.Fatalf("%s: %d deltas, want %d, or they differ", label, len(got.Deltas), len(want.Deltas))
	}
	if !reflect.DeepEqual(got.Reply.Usage, want.Reply.Usage) || len(got.Reply.Items) != len(want.Reply.Items) {
		t.Fatalf("%s: %d items, usage %s; want %d, %s", label, len(got.Reply.Items), usageString(got.Reply.Usage), len(want.Reply.Items), usageString(want.Reply.Usage))
	}
	for i := range want.Reply.Items {
		g, w := got.Reply.Items[i], want.Reply.Items[i]
		graw, gok := g.NativeJSON()
		wraw, wok := w.NativeJSON()
		if !gok || !wok || !sameJSON(string(graw), string(wraw)) {
			t.Fatalf("%s: item %d sends %s, want %s", label, i, clip(string(graw)), clip(string(wraw)))
		}
		g.Raw, w.Raw = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: item %d is %s, want %s", label, i, brief(g), brief(w))
		}
	}
}

// brief describes an item in a line.
func brief(it albedo.Item) string {
	return fmt.Sprintf("%s %q (%d bytes) call %q %q args %q (%d bytes) flags %d", it.Kind, clip(it.Text), len(it.Text),
		it.CallID, it.ToolName, clip(it.Arguments), len(it.Arguments), it.Flags)
}

func TestResponsesRecordingsDecodeAlikeWithLongStrings(t *testing.T) {
	dir := wireDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*responses*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Responses recordings: %v", err)
	}
	quiet := slog.New(slog.DiscardHandler)
	for _, file := range files {
		rec := loadRecording(t, dir, filepath.Base(file))
		for i, body := range rec.bodies {
			for _, framing := range []struct {
				name string
				f    func([]byte) []byte
			}{{"as recorded", func(b []byte) []byte { return b }}, {"crlf", crlf}, {"keep-alive", keepAlive}} {
				b := string(framing.f(body))
				want, _ := decodeResponses(strings.NewReader(b), quiet, nil)
				if len(want.Reply.Items) == 0 && want.Err == "" {
					t.Fatalf("%s/%d: nothing decoded", rec.name, i)
				}
				for _, tc := range []struct {
					name string
					r    io.Reader
					tune func(*responsesDecoder)
				}{
					{"streamed", strings.NewReader(b), tiny},
					{"streamed, byte by byte", iotest.OneByteReader(strings.NewReader(b)), tiny},
					{"walked", strings.NewReader(b), walkedOnly},
				} {
					got, _ := decodeResponses(tc.r, quiet, tc.tune)
					sameOutcome(t, fmt.Sprintf("%s/%d %s %s", rec.name, i, framing.name, tc.name), got, want)
				}
			}
		}
	}
}

// openAIStream is a Responses stream the way OpenAI sends one: for each
// output item its deltas, then the whole text again in each finishing
// event and in response.completed. Strings are encoded with non-ASCII
// escaped (\u00e9, surrogate pairs), as some servers do.
type openAIStream struct {
	reasoning, text, arguments string
	// finalText, when set, is the text the finishing events carry instead.
	finalText string
	// argumentDeltas says whether the arguments stream as deltas; LM
	// Studio sends them only in the finishing events.
	argumentDeltas bool
}

func asciiJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	out := make([]byte, 0, len(b)+len(b)/4)
	esc := func(r rune) { out = append(append(out, `\u`...), fmt.Sprintf("%04x", r)...) }
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			out = append(out, b[0])
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r > 0xffff {
			r -= 0x10000
			esc(0xd800 + r>>10)
			esc(0xdc00 + r&0x3ff)
			continue
		}
		esc(r)
	}
	return string(out)
}

func (s openAIStream) body() string {
	var b strings.Builder
	ev := func(v map[string]any) {
		b.WriteString("event: " + v["type"].(string) + "\ndata: " + asciiJSON(v) + "\n\n")
	}
	final := s.text
	if s.finalText != "" {
		final = s.finalText
	}
	reasoning := map[string]any{"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAAA-opaque",
		"summary": []any{map[string]any{"type": "summary_text", "text": s.reasoning}}}
	message := map[string]any{"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "phase": "final_answer",
		"content": []any{map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": final}}}
	call := map[string]any{"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1", "name": "python", "arguments": s.arguments}
	ev(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1", "output": []any{}}})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"id": "rs_1", "type": "reasoning", "summary": []any{}}})
	for _, p := range runePieces(s.reasoning, 16<<10) {
		ev(map[string]any{"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": p})
	}
	ev(map[string]any{"type": "response.reasoning_summary_text.done", "output_index": 0, "summary_index": 0, "text": s.reasoning})
	ev(map[string]any{"type": "response.reasoning_summary_part.done", "output_index": 0, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": s.reasoning}})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": reasoning})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 1, "item": map[string]any{"id": "msg_1", "type": "message", "content": []any{}}})
	for _, p := range runePieces(s.text, 16<<10) {
		ev(map[string]any{"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": p})
	}
	ev(map[string]any{"type": "response.output_text.done", "output_index": 1, "content_index": 0, "text": final})
	ev(map[string]any{"type": "response.content_part.done", "output_index": 1, "content_index": 0, "part": message["content"].([]any)[0]})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 1, "item": message})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 2, "item": map[string]any{"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "python", "arguments": ""}})
	if s.argumentDeltas {
		for _, p := range runePieces(s.arguments, 16<<10) {
			ev(map[string]any{"type": "response.function_call_arguments.delta", "output_index": 2, "delta": p})
		}
	}
	ev(map[string]any{"type": "response.function_call_arguments.done", "output_index": 2, "arguments": s.arguments})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 2, "item": call})
	ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_1", "status": "completed",
		"output": []any{reasoning, message, call}, "usage": map[string]any{"input_tokens": 3, "output_tokens": 5}}})
	return b.String()
}

// runePieces cuts s into pieces of about n bytes, on character
// boundaries.
func runePieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for !utf8.RuneStart(s[i]) {
			i--
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return append(out, s)
}

// long repeats unit to more than n bytes; the units mix ASCII, escapes
// and characters of every UTF-8 length.
func long(unit string, n int) string { return strings.Repeat(unit, n/len(unit)+1) }

// recordingLog collects warnings.
type recordingLog struct{ warnings []string }

func (l *recordingLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordingLog) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		l.warnings = append(l.warnings, r.Message)
	}
	return nil
}
func (l *recordingLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *recordingLog) WithGroup(string) slog.Handler      { return l }

// scaled shrinks the sizes past which events stream and strings are long
// (to 64 and 4 KiB), so that short texts take the paths of long ones.
func scaled(d *responsesDecoder) { d.longEvent, d.longString = 64<<10, 4<<10 }

func TestResponsesLongRepliesKeepEachTextOnce(t *testing.T) {
	const size = 200 << 10 // past the scaled longEvent: the finishing events stream
	unit := "é \"quoted\" \\ back\nslash\t✓ 😀 \u2028 plain text "
	args := `{"code": "` + strings.Repeat(`print(\"x\")\n`, size/14+1) + `"}`
	tests := []struct {
		name   string
		stream openAIStream
		tune   func(*responsesDecoder)
		// kept is how many long strings the decoder holds besides what
		// streamed, once the reply is built.
		kept int
		warn bool
	}{
		{"short", openAIStream{reasoning: "thinking", text: "the answer " + unit, arguments: `{"code": "1"}`, argumentDeltas: true}, scaled, 0, false},
		{"long text", openAIStream{reasoning: "thinking", text: long(unit, size), arguments: `{"code": "1"}`, argumentDeltas: true}, scaled, 0, false},
		{"long reasoning", openAIStream{reasoning: long(unit, size), text: "ok", arguments: `{"code": "1"}`, argumentDeltas: true}, scaled, 0, false},
		{"long arguments", openAIStream{reasoning: "r", text: "ok", arguments: args, argumentDeltas: true}, scaled, 0, false},
		{"long arguments without deltas", openAIStream{reasoning: "r", text: "ok", arguments: args}, scaled, 1, false},
		{"final text differs from the deltas", openAIStream{reasoning: "r", text: long(unit, size), finalText: "!" + long(unit, size), arguments: "{}", argumentDeltas: true}, scaled, 1, true},
		{"just over a long string", openAIStream{reasoning: "r", text: long("x", 4<<10), arguments: "{}", argumentDeltas: true}, scaled, 0, false},
		{"long text, at the real sizes", openAIStream{reasoning: "r", text: long("a plain answer ", longEventData+longStringSize), arguments: "{}", argumentDeltas: true}, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.stream.body()
			var log recordingLog
			got, d := decodeResponses(strings.NewReader(body), slog.New(&log), tt.tune)
			if got.Err != "" {
				t.Fatal(got.Err)
			}
			final := tt.stream.text
			if tt.stream.finalText != "" {
				final = tt.stream.finalText
			}
			items := got.Reply.Items
			if len(items) != 3 || items[0].Text != tt.stream.reasoning || items[1].Text != final || items[2].Arguments != tt.stream.arguments {
				t.Fatalf("items differ from what the provider sent: %d items", len(items))
			}
			// Each item sends back exactly what the provider sent.
			var completed struct {
				Response struct{ Output []json.RawMessage } `json:"response"`
			}
			last := body[strings.LastIndex(body, "data: ")+len("data: "):]
			if err := json.Unmarshal([]byte(last), &completed); err != nil {
				t.Fatal(err)
			}
			for i, it := range items {
				raw, ok := it.NativeJSON()
				if !ok || !sameJSON(string(raw), string(completed.Response.Output[i])) {
					t.Errorf("item %d sends back %.300s, want %.300s", i, raw, completed.Response.Output[i])
				}
				if len(it.Text)+len(it.Arguments) > d.longString && len(it.Raw) > 1024 {
					t.Errorf("item %d's Raw carries its long text again (%d bytes)", i, len(it.Raw))
				}
			}
			kept := 0
			for _, v := range d.longs {
				if v.owned && v.buf != nil {
					kept++
				}
			}
			if kept != tt.kept {
				t.Errorf("the decoder keeps %d long strings besides the streamed texts, want %d", kept, tt.kept)
			}
			if warned := len(log.warnings) > 0; warned != tt.warn {
				t.Errorf("warnings %q, want a warning: %v", log.warnings, tt.warn)
			}
			// The bounded path gives what the whole events give.
			whole, _ := decodeResponses(strings.NewReader(body), slog.New(slog.DiscardHandler), func(d *responsesDecoder) { d.longEvent, d.longString = 1<<30, 1<<30 })
			sameOutcome(t, "whole events", got, whole)
		})
	}
}

func TestResponsesLongEventCutShort(t *testing.T) {
	text := long("abc", 200<<10)
	body := openAIStream{reasoning: "r", text: text, arguments: "{}", argumentDeltas: true}.body()
	last := strings.LastIndex(body, "data: ")
	done := strings.Index(body, "response.output_text.done")
	tests := []struct {
		name, body, err string
	}{
		// The event that never ends is dropped; the answer that streamed is
		// kept, flagged partial.
		{"inside the final event", body[:last+(100<<10)], "ended early"},
		{"before the final event's blank line", strings.TrimSuffix(body, "\n\n") + "\n", "ended early"},
		{"inside a long string of a finishing event", body[:done+(100<<10)], "ended early"},
		{"malformed long string", body[:done] + strings.Replace(body[done:], "abcabc", "abc\x01abc", 1), "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, d := decodeResponses(strings.NewReader(tt.body), slog.New(slog.DiscardHandler), scaled)
			if !strings.Contains(got.Err, tt.err) {
				t.Fatalf("error %q, want %q", got.Err, tt.err)
			}
			whole, _ := decodeResponses(strings.NewReader(tt.body), slog.New(slog.DiscardHandler), func(d *responsesDecoder) { d.longEvent, d.longString = 1<<30, 1<<30 })
			if !strings.Contains(whole.Err, tt.err) {
				t.Fatalf("whole events: error %q, want %q", whole.Err, tt.err)
			}
			partial := d.partial().Items
			if len(partial) != 2 || partial[1].Text != text || partial[1].Flags&albedo.FlagPartial == 0 {
				t.Fatalf("partial reply %d items, want the reasoning and the whole text", len(partial))
			}
		})
	}
}

// BenchmarkLongResponsesAnswer streams an 8 MiB answer sent the way
// OpenAI sends it (deltas, then the whole text again in four finishing
// events and in response.completed); B/op is what receiving it allocates
// on the Go heap (the streamed text itself lives in off-heap chunks).
func BenchmarkLongResponsesAnswer(b *testing.B) {
	body := openAIStream{reasoning: "r", text: long("a long answer, ", 8<<20), arguments: "{}", argumentDeltas: true}.body()
	c := New(Options{HTTPClient: &http.Client{Transport: roundTrip(body)}, Logger: slog.New(slog.DiscardHandler)})
	req := albedo.ModelRequest{Endpoint: albedo.Endpoint{BaseURL: "http://model.invalid/v1", Protocol: albedo.ProtocolResponses}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Stream(context.Background(), req, func(albedo.Delta) {}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestResponsesLongAnswerReplaysAsReceived(t *testing.T) {
	stream := openAIStream{reasoning: long("reasoning ✓ ", 100<<10), text: long("é \"answer\"\n😀 ", longEventData+longStringSize), arguments: `{"code": "` + long("x = 1\\n", 100<<10) + `"}`, argumentDeltas: true}
	body := stream.body()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, body)
			return
		}
		streamEvents(w, responsesText()...)
	})
	ep := endpoint(p, albedo.ProtocolResponses)
	c := New(Options{MaxRetries: -1})
	transcript := []albedo.Item{{Kind: albedo.KindUser, Text: "Hello"}}
	reply, err := c.Stream(context.Background(), albedo.ModelRequest{Endpoint: ep, Input: albedo.Project(transcript, ep.Protocol)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	transcript = append(transcript, reply.Items...)
	transcript = append(transcript, albedo.Item{Kind: albedo.KindToolOutput, CallID: "call_1", ToolName: "python", Text: "done"})
	if _, err := c.Stream(context.Background(), albedo.ModelRequest{Endpoint: ep, Input: albedo.Project(transcript, ep.Protocol)}, nil); err != nil {
		t.Fatal(err)
	}
	var completed struct {
		Response struct{ Output []any } `json:"response"`
	}
	if err := json.Unmarshal([]byte(body[strings.LastIndex(body, "data: ")+len("data: "):]), &completed); err != nil {
		t.Fatal(err)
	}
	sent := p.seen()[1].Body
	input, _ := sent["input"].([]any)
	if len(input) != 5 {
		t.Fatalf("the second request holds %d input items, want the user's, the three output items and the output", len(input))
	}
	for i, want := range completed.Response.Output {
		got := input[1+i].(map[string]any)
		// The request stores nothing by default, so the server ids are left out.
		w := want.(map[string]any)
		delete(w, "id")
		if !reflect.DeepEqual(got, w) {
			t.Errorf("input item %d differs from output item %d as received: %s", 1+i, i, clip(string(mustMarshal(got))))
		}
	}
	problems, err := requestChecker(t).check("responses", sent)
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range problems {
		t.Errorf("the request is outside the published schema: %s", problem)
	}
}
