package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// TestModelsListsWhatTheProviderServes: GET {baseUrl}/models with the key,
// the ids sorted; a refusal or a page that is no model list says what the
// provider answered.
func TestModelsListsWhatTheProviderServes(t *testing.T) {
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   []string
		err    []string
	}{
		{"a list", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"gpt-b","object":"model"},{"id":"gpt-a"},{"id":""},{"id":"gpt-a"}]}`)
		}, []string{"gpt-a", "gpt-b"}, nil},
		{"an empty list", func(w http.ResponseWriter) { _, _ = io.WriteString(w, `{"data":[]}`) }, []string{}, nil},
		{"a refusal", func(w http.ResponseWriter) {
			http.Error(w, `{"error":{"message":"Incorrect API key provided"}}`, http.StatusUnauthorized)
		}, nil, []string{`provider "fixture"`, "401", "Incorrect API key provided"}},
		{"an HTML page", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html><title>Welcome</title></html>")
		}, nil, []string{`provider "fixture"`, `an HTML page ("Welcome")`, "not an OpenAI-compatible API"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path, auth, method string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				path, auth, method = r.URL.Path, r.Header.Get("Authorization"), r.Method
				tt.answer(w)
			}))
			defer srv.Close()
			got, err := New(Options{}).Models(context.Background(), endpoint(&provider{Server: srv}, albedo.ProtocolResponses))
			if path != "/v1/models" || auth != "Bearer fixture-key" || method != http.MethodGet {
				t.Errorf("asked %s %s with %q", method, path, auth)
			}
			if tt.err != nil {
				mustContain(t, errorText(t, err), tt.err...)
				if albedo.ErrorCode(err) != CodeProviderError {
					t.Errorf("code = %q", albedo.ErrorCode(err))
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Models = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
