package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/fixtures/fakemodel"
)

// TestRun runs the example against a fake model that has the Python
// kernel compute the answer, then answers with what the cell printed.
func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		script  func(n int, req fakemodel.Request) fakemodel.Reply
		prompt  string
		want    string
		wantErr string
	}{
		{
			name: "tool call then answer",
			script: func(n int, req fakemodel.Request) fakemodel.Reply {
				if n == 1 {
					return fakemodel.Python("import pathlib\nprint(6 * 7, pathlib.Path('notes.txt').read_text())")
				}
				if strings.Contains(req.LastMessage(), "42 from the workspace") {
					return fakemodel.Text("6 × 7 is 42, as notes.txt says.")
				}
				return fakemodel.Text("the cell did not print 42")
			},
			prompt: "What is 6 × 7?",
			want:   "6 × 7 is 42, as notes.txt says.\n",
		},
		{
			name:   "plain answer",
			script: func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Text("Hello.") },
			prompt: "Say hello",
			want:   "Hello.\n",
		},
		{
			name:    "no prompt",
			script:  func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Text("unused") },
			wantErr: "say what to ask",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			model := fakemodel.Start(tt.script)
			defer model.Close()
			home, workspace := t.TempDir(), t.TempDir()
			if err := model.WriteConfig(home); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(workspace, "notes.txt"), []byte("42 from the workspace"), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"-home", home, "-workspace", workspace}
			if tt.prompt != "" {
				args = append(args, tt.prompt)
			}
			var out bytes.Buffer
			err := run(ctx, args, &out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output = %q, want %q", out.String(), tt.want)
			}
			for _, req := range model.Requests() {
				if req.Authorization != "Bearer fake-key" || req.Model != "fake-model" {
					t.Errorf("request = %+v", req)
				}
			}
		})
	}
}

// TestRunReportsFailure checks that a provider's refusal is the program's
// error, not an empty answer.
func TestRunReportsFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	model := fakemodel.Start(func(int, fakemodel.Request) fakemodel.Reply {
		return fakemodel.Fail(http.StatusUnauthorized, "invalid api key")
	})
	defer model.Close()
	home := t.TempDir()
	if err := model.WriteConfig(home); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(ctx, []string{"-home", home, "-workspace", t.TempDir(), "hello"}, &out)
	if err == nil || !strings.Contains(err.Error(), "the turn failed") || !strings.Contains(err.Error(), "invalid api key") {
		t.Fatalf("err = %v, want a failed turn naming the provider's reason", err)
	}
	if out.Len() != 0 {
		t.Errorf("output = %q", out.String())
	}
}
