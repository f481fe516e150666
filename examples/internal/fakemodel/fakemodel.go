// Package fakemodel is a model provider for the examples' tests: an HTTP
// server on 127.0.0.1 that speaks the streaming Chat Completions protocol
// and answers every request from a script, with text or with a call of
// the python tool.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Reply is the scripted answer to one request: Text, or a python call
// running Code when Code is not empty, or an error answer with Status
// when Status is not zero.
type Reply struct {
	Text   string
	Code   string
	Status int
}

// Text returns a reply that answers with text.
func Text(s string) Reply { return Reply{Text: s} }

// Python returns a reply that calls the python tool with code.
func Python(code string) Reply { return Reply{Code: code} }

// Fail returns a reply that refuses the request with an HTTP status and
// an OpenAI-style error message.
func Fail(status int, message string) Reply { return Reply{Status: status, Text: message} }

// Request is one request the server received.
type Request struct {
	Path          string
	Authorization string
	Model         string
	// Messages are the request's "messages", each a JSON object.
	Messages []json.RawMessage
}

// LastMessage returns the last message of the request as text.
func (r Request) LastMessage() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return string(r.Messages[len(r.Messages)-1])
}

// Server is a fake model provider.
type Server struct {
	// URL is the base URL to configure: requests go to URL/chat/completions.
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	requests []Request
	script   func(n int, req Request) Reply
}

// Start serves script: n counts requests from 1. Calls of script never
// overlap. Close the server when done.
func Start(script func(n int, req Request) Reply) *Server {
	s := &Server{script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WriteConfig writes dir/config.json naming this server as the provider
// "fake" (model "fake-model", protocol chat_completions), the active one.
func (s *Server) WriteConfig(dir string) error {
	config := map[string]any{
		"active": "fake",
		"providers": map[string]any{
			"fake": map[string]string{"baseUrl": s.URL, "apiKey": "fake-key", "model": "fake-model", "protocol": "chat_completions"},
		},
	}
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.json"), data, 0o600)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error": {"message": "only chat completions here"}}`, http.StatusNotFound)
		return
	}
	var body struct {
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	req := Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Model: body.Model, Messages: body.Messages}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	reply := s.script(n, req)
	s.mu.Unlock()

	if reply.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": reply.Text}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, chunk := range chunks(n, reply) {
		data, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", data)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// chunks streams a reply the way a Chat Completions server does: text in
// small deltas, or a tool call whose arguments come in pieces, then the
// finish reason.
func chunks(n int, r Reply) []any {
	delta := func(d map[string]any) any {
		return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d}}}
	}
	var out []any
	finish := "stop"
	if r.Code != "" {
		args, _ := json.Marshal(map[string]any{"code": r.Code, "timeout_ms": 60000})
		out = append(out, delta(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("fake-call-%d", n), "type": "function",
			"function": map[string]any{"name": "python", "arguments": ""},
		}}}))
		for _, piece := range split(string(args), 16) {
			out = append(out, delta(map[string]any{"tool_calls": []any{map[string]any{
				"index": 0, "function": map[string]any{"arguments": piece},
			}}}))
		}
		finish = "tool_calls"
	} else {
		for _, piece := range split(r.Text, 8) {
			out = append(out, delta(map[string]any{"content": piece}))
		}
	}
	out = append(out, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}})
	return out
}

// split cuts s into pieces of at most size bytes, keeping UTF-8 sequences
// whole.
func split(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		k := min(size, len(s))
		for k < len(s) && k > 0 && s[k]&0xC0 == 0x80 {
			k--
		}
		if k == 0 {
			k = len(s)
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}
