package engine_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// toolCount is a claim of how many tools the model has.
var toolCount = regexp.MustCompile(`(?i)\b(one|only|single|sole|two|three) tools?\b`)

func TestTheDefaultInstructionsHoldForEveryToolSet(t *testing.T) {
	clock := albedo.ToolDef{Tool: albedo.Tool{Name: "clock", Description: "The time."},
		Handler: func(context.Context, albedo.ToolCall) (string, error) { return "12:00", nil }}
	shell := albedo.ToolDef{Tool: albedo.Tool{Name: "shell", Description: "Run a command."},
		Handler: func(context.Context, albedo.ToolCall) (string, error) { return "", nil }}
	for _, tc := range []struct {
		name  string
		tools []albedo.ToolDef
	}{
		{"python alone", nil},
		{"a program's tool", []albedo.ToolDef{clock}},
		{"two of a program's tools", []albedo.ToolDef{clock, shell}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("done")))
			r.tune = func(o *engine.Options) { o.Tools = tc.tools }
			r.svc = r.newService()
			sess := r.session(respProvider)
			r.turn(sess.ID, "hello")
			req := r.provider.Requests()[0]
			if !strings.HasPrefix(req.Instructions, albedo.DefaultInstructions) {
				t.Fatalf("instructions %q; want the default ones first", req.Instructions)
			}
			if claim := toolCount.FindString(albedo.DefaultInstructions); claim != "" {
				t.Errorf("the instructions say %q of tools the program chooses", claim)
			}
			for _, tool := range req.Tools {
				named := strings.Contains(albedo.DefaultInstructions, "is "+tool.Name+":")
				if !named && !strings.Contains(albedo.DefaultInstructions, "any other tool") {
					t.Errorf("the instructions neither describe %s nor leave it to its declaration", tool.Name)
				}
			}
			if len(req.Tools) != 1+len(tc.tools) || req.Tools[0].Name != "python" {
				t.Errorf("tools offered %+v; want python first and the program's after it", req.Tools)
			}
		})
	}
}
