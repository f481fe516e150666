package sse

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll returns every event of r and the error that ended it (nil for
// the end of the body, an event cut short included).
func readAll(r io.Reader) ([]Event, error) {
	s := NewReader(r, 0)
	var out []Event
	for {
		ev, err := s.Next()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// splitReader yields its input in two reads cut at n.
func splitReader(s string, n int) io.Reader {
	return io.MultiReader(strings.NewReader(s[:n]), strings.NewReader(s[n:]))
}

// readerCases are streams and the events read from them, each framing
// the specification allows; FuzzReader starts from them too.
var readerCases = []struct {
	name string
	in   string
	want []Event
}{
	{"empty", "", nil},
	{"one event", "data: hello\n\n", []Event{{Data: "hello"}}},
	{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []Event{{Data: "a"}, {Data: "b"}}},
	{"cr", "data: a\r\rdata: b\r\r", []Event{{Data: "a"}, {Data: "b"}}},
	{"mixed line ends", "data: a\r\n\ndata: b\r\r\n", []Event{{Data: "a"}, {Data: "b"}}},
	{"multi-line data", "data: one\ndata: two\ndata:three\n\n", []Event{{Data: "one\ntwo\nthree"}}},
	{"only one space stripped", "data:  two spaces\n\n", []Event{{Data: " two spaces"}}},
	{"empty data dispatches", "data\n\ndata:\n\n", []Event{{Data: ""}, {Data: ""}}},
	{"comments ignored", ": keep-alive\n\n:\ndata: x\n: mid\n\n", []Event{{Data: "x"}}},
	{"event and id", "event: response.created\nid: 7\ndata: {}\n\n", []Event{{Type: "response.created", ID: "7", Data: "{}"}}},
	{"event type resets", "event: a\ndata: 1\n\ndata: 2\n\n", []Event{{Type: "a", Data: "1"}, {Data: "2"}}},
	{"id persists", "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", []Event{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}, {Data: "c"}}},
	{"id with NUL ignored", "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n", []Event{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}}},
	{"event without data not dispatched", "event: ping\n\ndata: x\n\n", []Event{{Data: "x"}}},
	{"unknown fields and retry ignored", "retry: 10\nfoo: bar\ndata: x\n\n", []Event{{Data: "x"}}},
	{"llama.cpp's error field is an error event", "error: {\"code\":400}\n\ndata: [DONE]\n\n", []Event{{Type: "error", Data: `{"code":400}`}, {Data: "[DONE]"}}},
	{"colon in value kept", "data: {\"a\":\"b: c\"}\n\n", []Event{{Data: `{"a":"b: c"}`}}},
	{"done sentinel", "data: [DONE]\n\n", []Event{{Data: "[DONE]"}}},
	{"unterminated event dropped", "data: a\n\ndata: b\n", []Event{{Data: "a"}}},
	{"unterminated line dropped", "data: a\n\ndata: b", []Event{{Data: "a"}}},
	{"byte order mark", "\ufeffdata: a\n\n", []Event{{Data: "a"}}},
	{"byte order mark only at start", "\n\ufeffdata: a\n\n", nil},
	{"long line", "data: " + strings.Repeat("x", 100000) + "\n\n", []Event{{Data: strings.Repeat("x", 100000)}}},
}

func TestReader(t *testing.T) {
	for _, tt := range readerCases {
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

func TestReaderEndsSayWhetherAnEventWasCut(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want error
	}{
		{"", io.EOF},
		{"data: a\n\n", io.EOF},
		{"data: a\n\n: a comment", io.EOF},
		{"data: a\n\ndata: b\n", io.ErrUnexpectedEOF},
		{"data: a\n\ndata: b", io.ErrUnexpectedEOF},
	} {
		s := NewReader(strings.NewReader(tt.in), 0)
		var err error
		for err == nil {
			_, err = s.Next()
		}
		if err != tt.want {
			t.Errorf("%q: ended with %v, want %v", tt.in, err, tt.want)
		}
	}
}

// TestReaderStopsAtItsLimit: a line or an event's data past the limit
// ends reading there; what is under it reads as ever.
func TestReaderStopsAtItsLimit(t *testing.T) {
	endless := io.MultiReader(strings.NewReader("data: ok\n\ndata: "), iotest.OneByteReader(repeatReader('x')))
	for _, tt := range []struct {
		name string
		in   io.Reader
		what string
	}{
		{"an endless line", endless, "a stream line"},
		{"an event of many lines", strings.NewReader("data: ok\n\n" + strings.Repeat("data: 0123456789\n", 20)), "a stream event"},
	} {
		s := NewReader(tt.in, 100)
		ev, err := s.Next()
		if err != nil || ev.Data != "ok" {
			t.Fatalf("%s: first event %+v, %v", tt.name, ev, err)
		}
		_, err = s.Next()
		var long *TooLong
		if !errors.As(err, &long) || long.What != tt.what {
			t.Errorf("%s: %v, want %s past the limit", tt.name, err, tt.what)
		}
	}
	s := NewReader(strings.NewReader("data: "+strings.Repeat("y", 94)+"\n\n"), 100)
	if ev, err := s.Next(); err != nil || len(ev.Data) != 94 {
		t.Errorf("a line at the limit: %d bytes, %v", len(ev.Data), err)
	}
}

// repeatReader yields c without end.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom))
	got, err := readAll(r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if want := []Event{{Data: "a"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func FuzzReader(f *testing.F) {
	for _, tt := range readerCases {
		f.Add([]byte(tt.in), uint16(len(tt.in)/2))
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
	})
}
