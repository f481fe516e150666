package openai

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll returns every event of r and the error that ended it (nil for a
// clean end of the body).
func readAll(r io.Reader) ([]sseEvent, error) {
	s := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := s.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// readAllStreamed is readAll with every data line longer than above
// streamed; each streamed event comes back as the event it reads as.
func readAllStreamed(r io.Reader, above int) ([]sseEvent, error) {
	s := newSSEReader(r)
	s.streamAbove = above
	var out []sseEvent
	for {
		ev, err := s.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if ev.body != nil {
			data, err := io.ReadAll(ev.body)
			if err == errEventOpen {
				return out, nil
			}
			if err != nil {
				return out, unwrapRead(err)
			}
			ev = sseEvent{Type: ev.body.typ, ID: ev.body.id, Data: string(data)}
		}
		out = append(out, ev)
	}
}

// splitReader yields its input in two reads cut at n.
func splitReader(s string, n int) io.Reader {
	return io.MultiReader(strings.NewReader(s[:n]), strings.NewReader(s[n:]))
}

func TestSSE(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"empty", "", nil},
		{"one event", "data: hello\n\n", []sseEvent{{Data: "hello"}}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"cr", "data: a\r\rdata: b\r\r", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"mixed line ends", "data: a\r\n\ndata: b\r\r\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"multi-line data", "data: one\ndata: two\ndata:three\n\n", []sseEvent{{Data: "one\ntwo\nthree"}}},
		{"only one space stripped", "data:  two spaces\n\n", []sseEvent{{Data: " two spaces"}}},
		{"empty data dispatches", "data\n\ndata:\n\n", []sseEvent{{Data: ""}, {Data: ""}}},
		{"comments ignored", ": keep-alive\n\n:\ndata: x\n: mid\n\n", []sseEvent{{Data: "x"}}},
		{"event and id", "event: response.created\nid: 7\ndata: {}\n\n", []sseEvent{{Type: "response.created", ID: "7", Data: "{}"}}},
		{"event type resets", "event: a\ndata: 1\n\ndata: 2\n\n", []sseEvent{{Type: "a", Data: "1"}, {Data: "2"}}},
		{"id persists", "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", []sseEvent{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}, {Data: "c"}}},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n", []sseEvent{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}}},
		{"event without data not dispatched", "event: ping\n\ndata: x\n\n", []sseEvent{{Data: "x"}}},
		{"unknown fields and retry ignored", "retry: 10\nfoo: bar\ndata: x\n\n", []sseEvent{{Data: "x"}}},
		{"llama.cpp's error field is an error event", "error: {\"code\":400}\n\ndata: [DONE]\n\n", []sseEvent{{Type: "error", Data: `{"code":400}`}, {Data: "[DONE]"}}},
		{"colon in value kept", "data: {\"a\":\"b: c\"}\n\n", []sseEvent{{Data: `{"a":"b: c"}`}}},
		{"done sentinel", "data: [DONE]\n\n", []sseEvent{{Data: "[DONE]"}}},
		{"unterminated event dropped", "data: a\n\ndata: b\n", []sseEvent{{Data: "a"}}},
		{"unterminated line dropped", "data: a\n\ndata: b", []sseEvent{{Data: "a"}}},
		{"byte order mark", "\ufeffdata: a\n\n", []sseEvent{{Data: "a"}}},
		{"byte order mark only at start", "\n\ufeffdata: a\n\n", nil},
		{"long line", "data: " + strings.Repeat("x", 100000) + "\n\n", []sseEvent{{Data: strings.Repeat("x", 100000)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := map[string]func() io.Reader{
				"whole":    func() io.Reader { return strings.NewReader(tt.in) },
				"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tt.in)) },
			}
			for how, r := range readers {
				got, err := readAll(r())
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s: got %+v, want %+v", how, got, tt.want)
				}
				// Streamed, each data line reads the same.
				for _, above := range []int{1, 4, 1000} {
					got, err := readAllStreamed(r(), above)
					if err != nil {
						t.Fatalf("%s, streamed above %d: %v", how, above, err)
					}
					if !reflect.DeepEqual(got, tt.want) {
						t.Errorf("%s, streamed above %d: got %+v, want %+v", how, above, clipEvents(got), clipEvents(tt.want))
					}
				}
			}
			if len(tt.in) > 1000 {
				return
			}
			for n := range len(tt.in) + 1 {
				got, _ := readAll(splitReader(tt.in, n))
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("cut at %d: got %+v, want %+v", n, got, tt.want)
				}
			}
		})
	}
}

// clipEvents shortens the data of events for a message.
func clipEvents(evs []sseEvent) []sseEvent {
	out := make([]sseEvent, len(evs))
	for i, ev := range evs {
		out[i] = sseEvent{Type: ev.Type, ID: ev.ID, Data: clip(ev.Data)}
	}
	return out
}

func TestSSEStreamedEvent(t *testing.T) {
	in := "event: a\ndata: first line\n: a comment\ndata: " + strings.Repeat("y", 5000) + "\nid: 9\nevent: b\ndata: last\n\ndata: next\n\n"
	s := newSSEReader(iotest.OneByteReader(strings.NewReader(in)))
	s.streamAbove = 100
	ev, err := s.next()
	if err != nil || ev.body == nil {
		t.Fatalf("first event %+v, %v: want a streamed one", ev, err)
	}
	data, err := io.ReadAll(ev.body)
	if err != nil || string(data) != "first line\n"+strings.Repeat("y", 5000)+"\nlast" || ev.body.typ != "b" || ev.body.id != "9" {
		t.Fatalf("streamed event %q (type %q, id %q), %v", clip(string(data)), ev.body.typ, ev.body.id, err)
	}
	if ev, err := s.next(); err != nil || ev.Data != "next" || ev.Type != "" || ev.ID != "9" {
		t.Fatalf("next event %+v, %v", ev, err)
	}
	// A streamed event its reader left unread is read past.
	s = newSSEReader(iotest.OneByteReader(strings.NewReader(in)))
	s.streamAbove = 100
	if ev, err := s.next(); err != nil || ev.body == nil {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	if ev, err := s.next(); err != nil || ev.Data != "next" {
		t.Fatalf("after an unread streamed event: %+v, %v", ev, err)
	}
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom))
	got, err := readAll(r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if want := []sseEvent{{Data: "a"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Inside a streamed event, the read error ends its body.
	r = io.MultiReader(strings.NewReader("data: a\n\ndata: "+strings.Repeat("b", 100)), iotest.ErrReader(boom))
	if got, err = readAllStreamed(r, 10); !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("streamed: %+v, %v; want the first event, then %v", got, err, boom)
	}
}

// sseSeeds are event streams of both protocols as providers send them.
var sseSeeds = []string{
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
	"data: line one\ndata: line two\nid: 4\nretry: 100\n\n\ufeff: odd\n",
}

func FuzzSSE(f *testing.F) {
	for _, s := range sseSeeds {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		want, err := readAll(strings.NewReader(string(in)))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range want {
			if strings.ContainsAny(ev.Type, "\r\n") || strings.ContainsAny(ev.ID, "\r\n\x00") || strings.Contains(ev.Data, "\r") {
				t.Fatalf("event holds a line end: %+v", ev)
			}
		}
		n := int(cut) % (len(in) + 1)
		got, _ := readAll(splitReader(string(in), n))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cut at %d: got %+v, want %+v", n, got, want)
		}
		got, _ = readAll(iotest.OneByteReader(strings.NewReader(string(in))))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("byte by byte: got %+v, want %+v", got, want)
		}
		above := 1 + int(cut)%16
		got, _ = readAllStreamed(splitReader(string(in), n), above)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("streamed above %d, cut at %d: got %+v, want %+v", above, n, got, want)
		}
	})
}
