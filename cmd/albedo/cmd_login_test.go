package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSecretFromStdin(t *testing.T) {
	tests := []struct{ name, stdin, want string }{
		{name: "a line", stdin: "sk-1\nignored\n", want: "sk-1"},
		{name: "no newline, spaces", stdin: "  sk-2  ", want: "sk-2"},
		{name: "nothing", stdin: "", want: ""},
		{name: "a blank line", stdin: " \n", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			e := &env{stdin: strings.NewReader(tt.stdin), stdout: &out, stderr: &out}
			got, err := readSecret(e, "p", false)
			if err != nil {
				t.Fatalf("readSecret: %v", err)
			}
			if got != tt.want {
				t.Errorf("readSecret = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoginChangesAProviderWithoutItsKey(t *testing.T) {
	dir := t.TempDir()
	login := func(stdin string, args ...string) string {
		t.Helper()
		var out, errs bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errs, home: dir}
		if code := run(t.Context(), e, append([]string{"login"}, args...)); code != 0 {
			t.Fatalf("login %q exited %d: %s", args, code, errs.String())
		}
		data, err := os.ReadFile(filepath.Join(dir, "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	login("sk-first\n", "--name", "team", "--base-url", "http://127.0.0.1:9/v1", "--model", "m1", "--protocol", "chat_completions")
	steps := []struct {
		args []string
		want []string
	}{
		{[]string{"--name", "team", "--model", "m2"}, []string{`"model": "m2"`, `"apiKey": "sk-first"`, `"baseUrl": "http://127.0.0.1:9/v1"`, `"protocol": "chat_completions"`}},
		{[]string{"--name", "team", "--base-url", "http://127.0.0.1:8/v1"}, []string{`"model": "m2"`, `"apiKey": "sk-first"`, `"baseUrl": "http://127.0.0.1:8/v1"`}},
	}
	for _, step := range steps {
		got := login("", step.args...)
		for _, w := range step.want {
			if !strings.Contains(got, w) {
				t.Errorf("after login %q, config.json lacks %s:\n%s", step.args, w, got)
			}
		}
	}
	// A new provider still needs its key.
	var errs bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &errs, stderr: &errs, home: dir}
	if code := run(t.Context(), e, []string{"login", "--name", "other", "--base-url", "http://x/v1", "--model", "m"}); code != 2 || !strings.Contains(errs.String(), "no API key") {
		t.Errorf("a new provider without a key: exit %d, %q", code, errs.String())
	}
}

func TestModelAloneShowsTheChoiceAndTheProviders(t *testing.T) {
	dir := t.TempDir()
	cli := func(stdin string, args ...string) string {
		t.Helper()
		var out, errs bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errs, home: dir}
		if code := run(t.Context(), e, args); code != 0 {
			t.Fatalf("%q exited %d: %s", args, code, errs.String())
		}
		return out.String()
	}
	if got := cli("", "model"); !strings.Contains(got, "no model provider is configured") || !strings.Contains(got, "\n    albedo login\n") {
		t.Errorf("model with no providers: %q", got)
	}
	cli("k1\n", "login", "--name", "alpha", "--base-url", "http://127.0.0.1:9/v1", "--model", "a1")
	cli("k2\n", "login", "--name", "beta", "--base-url", "http://127.0.0.1:8/v1", "--model", "b1", "--protocol", "chat_completions")
	got := cli("", "model")
	for _, want := range []string{"new sessions use b1 on beta (chat_completions)", "  alpha ", "* beta ", "http://127.0.0.1:9/v1"} {
		if !strings.Contains(got, want) {
			t.Errorf("model lacks %q:\n%s", want, got)
		}
	}
	if got := cli("", "model", "alpha", "a2"); !strings.Contains(got, "new sessions use a2 on alpha") {
		t.Errorf("model alpha a2: %q", got)
	}
}

func TestTheConsoleListsAProvidersModelsWithItsSavedKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer k1" {
			http.Error(w, `{"error": {"message": "who are you"}}`, http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `{"object": "list", "data": [{"id": "m2"}, {"id": "m1"}]}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out bytes.Buffer
	e := &env{stdin: strings.NewReader("k1\n"), stdout: &out, stderr: &out, home: dir}
	if code := run(t.Context(), e, []string{"login", "--name", "alpha", "--base-url", srv.URL + "/v1", "--model", "m1"}); code != 0 {
		t.Fatalf("login exited %d: %s", code, out.String())
	}
	got, err := e.listModels(t.Context(), "alpha")
	if err != nil || strings.Join(got, " ") != "m1 m2" {
		t.Errorf("listModels(alpha) = %q, %v; want m1 m2", got, err)
	}
	if _, err := e.listModels(t.Context(), "beta"); err == nil || !strings.Contains(err.Error(), `no provider "beta"`) {
		t.Errorf("listModels(beta) = %v, want no such provider", err)
	}
}
