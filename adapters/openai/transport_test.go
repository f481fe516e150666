package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

func chatReq(p *provider) albedo.ModelRequest {
	return albedo.ModelRequest{Endpoint: endpoint(p, albedo.ProtocolChatCompletions)}
}

func TestRetries(t *testing.T) {
	const key = "fixture-key"
	tests := []struct {
		name       string
		answer     func(w http.ResponseWriter, n int)
		maxRetries int
		requests   int
		err        []string
		status     int
	}{
		{
			name: "429 with Retry-After 0, then success",
			answer: func(w http.ResponseWriter, n int) {
				if n == 1 {
					w.Header().Set("Retry-After", "0")
					http.Error(w, `{"error":{"message":"Rate limit reached"}}`, http.StatusTooManyRequests)
					return
				}
				streamEvents(w, chatText("ok")...)
			},
			requests: 2,
		},
		{
			name: "5xx retried until exhausted",
			answer: func(w http.ResponseWriter, n int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = io.WriteString(w, `{"error":{"message":"The server had an error","type":"server_error"}}`)
			},
			maxRetries: 2,
			requests:   3,
			err:        []string{"500", "Internal Server Error", "The server had an error", `provider "fixture"`},
			status:     500,
		},
		{
			name: "an HTML 501 not retried, and what it said is shown",
			answer: func(w http.ResponseWriter, n int) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusNotImplemented)
				_, _ = io.WriteString(w, "<html><head><title>Unsupported method ('POST')</title></head><body>Error 501</body></html>")
			},
			requests: 1,
			err:      []string{"501 Not Implemented", `an HTML page ("Unsupported method ('POST')")`, `provider "fixture"`},
			status:   501,
		},
		{
			name: "400 not retried",
			answer: func(w http.ResponseWriter, n int) {
				http.Error(w, `{"error":{"message":"Unsupported parameter: 'reasoning_effort'","param":"reasoning_effort"}}`, http.StatusBadRequest)
			},
			requests: 1,
			err:      []string{"400 Bad Request", "Unsupported parameter: 'reasoning_effort'"},
			status:   400,
		},
		{
			name: "plain text body, truncated",
			answer: func(w http.ResponseWriter, n int) {
				http.Error(w, "upstream says "+strings.Repeat("no ", 1000), http.StatusBadGateway)
			},
			maxRetries: -1,
			requests:   1,
			err:        []string{"502 Bad Gateway: upstream says no no", "…"},
			status:     502,
		},
		{
			name: "key echoed by the provider is redacted",
			answer: func(w http.ResponseWriter, n int) {
				http.Error(w, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`, http.StatusUnauthorized)
			},
			requests: 1,
			err:      []string{"401 Unauthorized", "Incorrect API key provided: [redacted]"},
			status:   401,
		},
		{
			name: "key cut by the length cap is still redacted",
			answer: func(w http.ResponseWriter, n int) {
				http.Error(w, `{"error":{"message":"`+strings.Repeat("x", maxMessage-10)+" "+key+`"}}`, http.StatusUnauthorized)
			},
			requests: 1,
			err:      []string{"401 Unauthorized", " [redacted"},
			status:   401,
		},
		{
			name: "JSON instead of a stream",
			answer: func(w http.ResponseWriter, n int) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				_, _ = io.WriteString(w, `{"error":{"message":"quota exceeded"}}`)
			},
			requests: 1,
			err:      []string{"instead of an event stream", "quota exceeded"},
			status:   200,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { tt.answer(w, n) })
			c := fastClient(Options{MaxRetries: tt.maxRetries})
			_, err := c.Stream(context.Background(), chatReq(p), nil)
			if got := len(p.seen()); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if tt.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			msg := errorText(t, err)
			mustContain(t, msg, tt.err...)
			if strings.Contains(msg, key[:len(key)-2]) {
				t.Errorf("error %q contains (part of) the key", msg)
			}
			if len(msg) > 700 {
				t.Errorf("error is %d bytes long", len(msg))
			}
			var e *albedo.Error
			if !errors.As(err, &e) || e.Code != CodeProviderError || e.Details["status"] != tt.status || e.Details["provider"] != "fixture" {
				t.Errorf("error = %#v", err)
			}
		})
	}
}

func TestRetryAfterWaits(t *testing.T) {
	var first time.Time
	var gap time.Duration
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		gap = time.Since(first)
		streamEvents(w, chatText("ok")...)
	})
	// Retry-After is capped at 4×MaxBackoff = 400ms, far above the backoff.
	c := New(Options{BaseBackoff: time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	if _, err := c.Stream(context.Background(), chatReq(p), nil); err != nil {
		t.Fatal(err)
	}
	if gap < 400*time.Millisecond {
		t.Errorf("waited %v, want at least the 400ms the capped Retry-After asks", gap)
	}
}

func TestRetryWait(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := New(Options{BaseBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	tests := []struct {
		name     string
		header   string
		min, max time.Duration
	}{
		{"no header: the backoff", "", 5 * time.Millisecond, 10 * time.Millisecond},
		{"unreadable header: the backoff", "soon", 5 * time.Millisecond, 10 * time.Millisecond},
		{"seconds", "0", 0, 0},
		{"seconds capped at 4×MaxBackoff", "1", 400 * time.Millisecond, 400 * time.Millisecond},
		{"date", now.Add(-time.Minute).Format(http.TimeFormat), 0, 0},
		{"date capped at 4×MaxBackoff", now.Add(time.Hour).Format(http.TimeFormat), 400 * time.Millisecond, 400 * time.Millisecond},
	}
	for _, tt := range tests {
		if d := c.retryWait(0, tt.header, now); d < tt.min || d > tt.max {
			t.Errorf("%s: retryWait(0, %q) = %v, want within [%v, %v]", tt.name, tt.header, d, tt.min, tt.max)
		}
	}
}

func TestConnectionFailureRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			conn.Close() // hang up before answering
		}
	}()
	t.Cleanup(func() { l.Close() })
	ep := albedo.Endpoint{Provider: "gone", BaseURL: "http://" + l.Addr().String(), APIKey: "secret-key-1", Protocol: albedo.ProtocolResponses}
	_, err = fastClient(Options{MaxRetries: 2}).Stream(context.Background(), albedo.ModelRequest{Endpoint: ep}, nil)
	msg := errorText(t, err)
	mustContain(t, msg, `provider "gone" could not be reached`)
	if strings.Contains(msg, "secret-key-1") {
		t.Errorf("error %q contains the key", msg)
	}
	if n := len(accepted); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

func TestIdleTimeout(t *testing.T) {
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
	}{
		{"silent before the answer", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}},
		{"silent mid-stream", func(w http.ResponseWriter, r *http.Request) {
			streamEvents(w, chatText("partial")[:2]...)
			<-r.Context().Done()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { tt.answer(w, r) })
			c := New(Options{IdleTimeout: 150 * time.Millisecond})
			_, err := c.Stream(context.Background(), chatReq(p), nil)
			mustContain(t, errorText(t, err), `provider "fixture" sent nothing for 150ms`)
			if albedo.ErrorCode(err) != CodeProviderError {
				t.Errorf("code = %q", albedo.ErrorCode(err))
			}
			if n := len(p.seen()); n != 1 {
				t.Errorf("%d requests; a silent provider is not retried", n)
			}
		})
	}
}

func TestIdleTimerRearmedByData(t *testing.T) {
	// Twelve events 50ms apart outlast a 400ms idle timeout without
	// tripping it.
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
		streamEvents(w, ": open\n\n")
		for range 12 {
			time.Sleep(50 * time.Millisecond)
			_, _ = io.WriteString(w, data(`{"choices":[{"index":0,"delta":{"content":"."}}]}`))
			w.(http.Flusher).Flush()
		}
		_, _ = io.WriteString(w, data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)+data("[DONE]"))
	})
	reply, err := New(Options{IdleTimeout: 400 * time.Millisecond}).Stream(context.Background(), chatReq(p), nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Items[0].Text != "............" {
		t.Errorf("text = %q", reply.Items[0].Text)
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
	}{
		{"mid-stream", func(w http.ResponseWriter, r *http.Request) {
			streamEvents(w, chatText("partial")[:1]...)
			<-r.Context().Done()
		}},
		{"before the answer", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}},
		{"during a backoff", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { tt.answer(w, r) })
			ctx, cancel := context.WithCancel(context.Background())
			started := make(chan struct{}, 1)
			go func() {
				for len(p.seen()) == 0 {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(50 * time.Millisecond)
				started <- struct{}{}
				cancel()
			}()
			_, err := New(Options{MaxBackoff: 10 * time.Second}).Stream(ctx, chatReq(p), nil)
			<-started
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestBadEndpoint(t *testing.T) {
	tests := []struct {
		name string
		ep   albedo.Endpoint
		want string
	}{
		{"unknown protocol", albedo.Endpoint{Provider: "x", BaseURL: "http://h", Protocol: "completions"}, `unknown protocol "completions"`},
		{"relative URL", albedo.Endpoint{Provider: "x", BaseURL: "/v1", Protocol: albedo.ProtocolResponses}, "not an absolute http(s) URL"},
		{"other scheme", albedo.Endpoint{Provider: "x", BaseURL: "ftp://h/v1", Protocol: albedo.ProtocolChatCompletions}, "not an absolute http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Options{}).Stream(context.Background(), albedo.ModelRequest{Endpoint: tt.ep}, nil)
			mustContain(t, errorText(t, err), tt.want)
			if albedo.ErrorCode(err) != albedo.EConfig {
				t.Errorf("code = %q", albedo.ErrorCode(err))
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := New(Options{BaseBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	tests := []struct {
		attempt  int
		min, max time.Duration
	}{
		{0, 50 * time.Millisecond, 100 * time.Millisecond},
		{1, 100 * time.Millisecond, 200 * time.Millisecond},
		{3, 400 * time.Millisecond, 800 * time.Millisecond},
		{4, 500 * time.Millisecond, time.Second},
		{60, 500 * time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		for range 100 {
			if d := c.backoff(tt.attempt); d < tt.min || d > tt.max {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", tt.attempt, d, tt.min, tt.max)
			}
		}
	}
}

func TestProviderMessage(t *testing.T) {
	ep := albedo.Endpoint{APIKey: "k-secret"}
	tests := []struct{ body, want string }{
		{`{"error":{"message":"bad key","type":"auth"}}`, "bad key"},
		{`{"error":{"code":"model_not_found"}}`, "model_not_found"},
		{`{"error":"plain"}`, "plain"},
		{`{"message":"top"}`, "top"},
		{"  <html>\n<body>Bad   gateway</body></html>\n", "<html> <body>Bad gateway</body></html>"},
		{"", ""},
		{strings.Repeat("é", 400), strings.Repeat("é", 250) + "…"},
		{`{"error":{"message":"bad key k-secret"}}`, "bad key [redacted]"},
		{strings.Repeat("x", maxMessage-5) + " k-secret", strings.Repeat("x", maxMessage-5) + " [red…"},
	}
	for _, tt := range tests {
		if got := quote(ep, providerMessage([]byte(tt.body))); got != tt.want {
			t.Errorf("quote(providerMessage(%q)) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestBackoffLongWaitsDoNotOverflow(t *testing.T) {
	// A base of a minute doubled 29 times overflows a Duration.
	c := New(Options{BaseBackoff: time.Minute, MaxBackoff: time.Hour})
	for attempt := range 64 {
		if d := c.backoff(attempt); d < 0 || d > time.Hour {
			t.Fatalf("backoff(%d) = %v, want within [0, 1h]", attempt, d)
		}
	}
}

func TestRetriesAreAnnouncedAsDeltas(t *testing.T) {
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n <= 2 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"message":"overloaded, try later"}}`)
			return
		}
		streamEvents(w, chatText("ok")...)
	})
	c := fastClient(Options{MaxRetries: 3})
	var retries []string
	_, err := c.Stream(context.Background(), chatReq(p), func(d albedo.Delta) {
		if d.Kind == albedo.DeltaRetry {
			retries = append(retries, d.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(retries) != 2 {
		t.Fatalf("retry notices %q, want two", retries)
	}
	for i, text := range retries {
		mustContain(t, text, fmt.Sprintf("retrying (%d/3) in ", i+1), " s: ", "503", "overloaded, try later")
	}
}

func TestFailuresSayWhatToDo(t *testing.T) {
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   []string
		absent []string
	}{
		{
			name: "401 names the login command",
			answer: func(w http.ResponseWriter) {
				http.Error(w, `{"error":{"message":"Incorrect API key provided"}}`, http.StatusUnauthorized)
			},
			want: []string{"401 Unauthorized", "Incorrect API key provided", "update the key with: albedo login --name fixture"},
		},
		{
			name:   "403 too",
			answer: func(w http.ResponseWriter) { http.Error(w, `{"error":"forbidden"}`, http.StatusForbidden) },
			want:   []string{"403 Forbidden", "albedo login --name fixture"},
		},
		{
			name:   "404 says where it posted and that the base URL should end in /v1",
			answer: func(w http.ResponseWriter) { http.Error(w, `{"error":"no route"}`, http.StatusNotFound) },
			want:   []string{"404 Not Found", "posted to http://", "/chat/completions", "base URL ends in /v1"},
		},
		{
			name: "an HTML error page is summed up in a line",
			answer: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(http.StatusMethodNotAllowed)
				_, _ = io.WriteString(w, "<!DOCTYPE html><html><head><title>Welcome to\n nginx</title></head><body>"+strings.Repeat("<p>lorem</p>", 200)+"</body></html>")
			},
			want:   []string{"405", `an HTML page ("Welcome to nginx") from http://`, "/chat/completions", "not an OpenAI-compatible API"},
			absent: []string{"lorem", "<p>"},
		},
		{
			name: "an HTML page with 200 is no stream",
			answer: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = io.WriteString(w, "<html><title>Home</title></html>")
			},
			want: []string{"answered 200 with an HTML page", "/chat/completions", "not an OpenAI-compatible API"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, func(w http.ResponseWriter, r *http.Request, n int) { tt.answer(w) })
			_, err := fastClient(Options{MaxRetries: -1}).Stream(context.Background(), chatReq(p), nil)
			msg := errorText(t, err)
			mustContain(t, msg, tt.want...)
			for _, a := range tt.absent {
				if strings.Contains(msg, a) {
					t.Errorf("%q contains %q", msg, a)
				}
			}
		})
	}
}

func TestRefusedConnectionAsksWhetherTheServerRuns(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	req := albedo.ModelRequest{Endpoint: albedo.Endpoint{Provider: "local", BaseURL: "http://" + addr + "/v1", Model: "m", Protocol: albedo.ProtocolChatCompletions}}
	_, err = fastClient(Options{MaxRetries: -1}).Stream(context.Background(), req, nil)
	mustContain(t, errorText(t, err), "could not be reached at http://"+addr+"/v1/chat/completions", "is the server running?")
}

// TestRedact specifies where a provider's words lose the API key: where it
// stands as a token, and only for keys long enough to be secrets.
func TestRedact(t *testing.T) {
	tests := []struct{ name, key, in, want string }{
		{"key as a word", "sk-live-123456", "bad key sk-live-123456.", "bad key [redacted]."},
		{"key in quotes", "sk-live-123456", `key "sk-live-123456" rejected`, `key "[redacted]" rejected`},
		{"key after Bearer", "sk-live-123456", "Bearer sk-live-123456", "Bearer [redacted]"},
		{"every occurrence", "sk-live-123456", "sk-live-123456 and sk-live-123456", "[redacted] and [redacted]"},
		{"key inside a longer token", "sk-live-123456", "sk-live-1234567 is not it", "sk-live-1234567 is not it"},
		{"one-letter key", "x", "context exceeded max tokens", "context exceeded max tokens"},
		{"short key in the provider's name", "k", "ctkk failed", "ctkk failed"},
		{"seven letters are no secret", "abcdefg", "abcdefg rejected", "abcdefg rejected"},
		{"no key", "", "anything", "anything"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redact(albedo.Endpoint{APIKey: tt.key}, tt.in); got != tt.want {
				t.Errorf("redact(%q, %q) = %q, want %q", tt.key, tt.in, got, tt.want)
			}
		})
	}
}
