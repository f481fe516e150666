package openai

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/sse"
)

// outcome is everything a decoded stream produced.
type outcome struct {
	Reply  albedo.ModelReply
	Err    string
	Deltas []albedo.Delta
}

// run decodes body read through r with a decoder of protocol whose
// generated call ids are deterministic.
func run(protocol albedo.Protocol, r io.Reader) outcome {
	var out outcome
	onDelta := func(d albedo.Delta) { out.Deltas = append(out.Deltas, d) }
	n := 0
	id := func() string { n++; return fmt.Sprintf("call_gen%d", n) }
	ep := albedo.Endpoint{Provider: "fuzz", Protocol: protocol}
	var dec decoder
	if protocol == albedo.ProtocolChatCompletions {
		d := newChatDecoder(ep, onDelta, slog.New(slog.DiscardHandler))
		d.newID = id
		dec = d
	} else {
		d := newResponsesDecoder(ep, onDelta, slog.New(slog.DiscardHandler))
		d.newID = id
		dec = d
	}
	reply, err := decode(context.Background(), sse.NewReader(r, 0), dec)
	out.Reply = reply
	if err != nil {
		out.Err = err.Error()
	}
	return out
}

// fuzzStream checks the invariants both protocols share: decoding never
// panics, gives the same outcome however the body is cut into reads, and
// yields only well-formed items.
func fuzzStream(t *testing.T, protocol albedo.Protocol, body []byte, cut uint16) outcome {
	want := run(protocol, strings.NewReader(string(body)))
	n := int(cut) % (len(body) + 1)
	if got := run(protocol, splitReader(string(body), n)); !reflect.DeepEqual(got, want) {
		t.Fatalf("cut at %d:\n got %+v\nwant %+v", n, got, want)
	}
	if got := run(protocol, iotest.OneByteReader(strings.NewReader(string(body)))); !reflect.DeepEqual(got, want) {
		t.Fatalf("byte by byte:\n got %+v\nwant %+v", got, want)
	}
	if want.Err != "" && len(want.Reply.Items) > 0 {
		t.Fatalf("items %+v returned with error %q", want.Reply.Items, want.Err)
	}
	for _, it := range want.Reply.Items {
		if it.Protocol != protocol || !hasNativeForm(it) {
			t.Fatalf("bad item %+v", it)
		}
		if it.Kind == albedo.KindToolCall && it.CallID == "" {
			t.Fatalf("call without id: %+v", it)
		}
	}
	return want
}

func FuzzChatStream(f *testing.F) {
	f.Add([]byte(strings.Join(chatCallStream("call-1"), "")), uint16(100))
	f.Add([]byte(strings.Join(chatCallStream(""), "")), uint16(7))
	f.Add([]byte(strings.Join(chatText("finished"), "")), uint16(50))
	for _, s := range chatSeeds {
		f.Add([]byte(s), uint16(len(s)/3))
	}
	f.Add([]byte(`data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{"}},{"index":3,"function":{"arguments":"}"}}]},"finish_reason":"length"}]}`+"\n\n"), uint16(3))
	f.Add([]byte(`data: {"error":{"message":"overloaded"}}`+"\n\n"), uint16(1))
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		out := fuzzStream(t, albedo.ProtocolChatCompletions, body, cut)
		if out.Err != "" {
			return
		}
		// Every streamed fragment is in the reply, and nothing else.
		streamed := map[albedo.DeltaKind]int{}
		for _, d := range out.Deltas {
			streamed[d.Kind] += len(d.Text)
		}
		replied := map[albedo.DeltaKind]int{}
		for _, it := range out.Reply.Items {
			switch it.Kind {
			case albedo.KindReasoning:
				replied[albedo.DeltaReasoning] += len(it.Text)
			case albedo.KindAssistant:
				replied[albedo.DeltaText] += len(it.Text)
			case albedo.KindToolCall:
				replied[albedo.DeltaToolCall] += len(it.Arguments)
			}
		}
		maps.DeleteFunc(replied, func(_ albedo.DeltaKind, n int) bool { return n == 0 })
		if !reflect.DeepEqual(streamed, replied) {
			t.Fatalf("streamed %v bytes, replied %v", streamed, replied)
		}
	})
}

func FuzzResponsesStream(f *testing.F) {
	f.Add([]byte(strings.Join(responsesToolCall(), "")), uint16(100))
	f.Add([]byte(strings.Join(responsesText(), "")), uint16(30))
	for _, s := range responsesSeeds {
		f.Add([]byte(s), uint16(len(s)/3))
	}
	f.Add([]byte(`data: {"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"c9","name":"python"}}`+"\n\n"+
		`data: {"type":"response.function_call_arguments.delta","output_index":1,"delta":"{}"}`+"\n\n"+
		`data: {"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","call_id":"c9","name":"python","arguments":"{}"}}`+"\n\n"+
		`data: {"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}`+"\n\n"), uint16(60))
	f.Add([]byte(`data: {"type":"response.failed","response":{"error":{"message":"boom"}}}`+"\n\n"), uint16(9))
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		fuzzStream(t, albedo.ProtocolResponses, body, cut)
	})
}

// splitReader yields its input in two reads cut at n.
func splitReader(s string, n int) io.Reader {
	return io.MultiReader(strings.NewReader(s[:n]), strings.NewReader(s[n:]))
}

// chatSeeds are Chat Completions streams as providers send them.
var chatSeeds = []string{
	"data: {\"id\":\"r1\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"r1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call-1\",\"type\":\"function\",\"function\":{\"name\":\"python\",\"arguments\":\"{\\\"code\\\": \"}}]},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"r1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"1\\\"}\"}}]},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"r1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: {\"id\":\"r1\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n" +
		"data: [DONE]\n\n",
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"fin\"}}]}\r\n\r\n" +
		": keep-alive\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ished\"},\"finish_reason\":\"stop\"}]}\r\n\r\n" +
		"data: [DONE]\r\n\r\n",
}

// responsesSeeds are Responses streams as providers send them.
var responsesSeeds = []string{
	"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r1\"}}\n\n" +
		"event: response.reasoning_summary_text.delta\ndata: {\"type\":\"response.reasoning_summary_text.delta\",\"output_index\":0,\"summary_index\":0,\"delta\":\"think\"}\n\n" +
		"event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,\"delta\":\"{}\"}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r1\",\"status\":\"completed\",\"output\":[" +
		"{\"id\":\"rs1\",\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"think\"}]}," +
		"{\"id\":\"fc1\",\"type\":\"function_call\",\"call_id\":\"call-1\",\"name\":\"python\",\"arguments\":\"{}\",\"status\":\"completed\"}]," +
		"\"usage\":{\"input_tokens\":10,\"output_tokens\":20}}}\n\n",
	"data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"finished\"}\r\r" +
		"data: {\"type\":\"response.completed\",\"response\":{\"output\":[{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"finished\",\"annotations\":[]}]}]}}\r\r",
	"event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"}\n\n",
}
