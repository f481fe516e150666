package engine_test

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// The ledger's limits, in characters (see albedo/vent.go).
const (
	ventTitleLimit = 200
	ventTextLimit  = 8000
)

func TestVentFieldsOverTheirLimitsAreRefused(t *testing.T) {
	tests := []struct {
		name  string
		vent  albedo.NewVent
		field string
	}{
		{"title", albedo.NewVent{Topic: "bug", Message: "m", Title: strings.Repeat("t", ventTitleLimit+1)}, "title"},
		{"title in runes", albedo.NewVent{Topic: "bug", Message: "m", Title: strings.Repeat("é", ventTitleLimit+1)}, "title"},
		{"message", albedo.NewVent{Topic: "bug", Message: strings.Repeat("m", ventTextLimit+1)}, "message"},
		{"message in runes", albedo.NewVent{Topic: "user", Message: strings.Repeat("ü", ventTextLimit+1)}, "message"},
		{"suggestion", albedo.NewVent{Topic: "harness", Message: "m", Suggestion: strings.Repeat("s", ventTextLimit+1)}, "suggestion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("x")))
			sess := r.session("")
			_, err := r.svc.FileVent(r.ctx, sess.ID, tc.vent)
			wantCode(t, err, albedo.EInvalid)
			if msg := albedo.ErrorMessage(err); !strings.Contains(msg, tc.field) {
				t.Errorf("message %q does not name the %s", msg, tc.field)
			}
			if vents, _, err := r.svc.VentPage(r.ctx, 0, 0); err != nil || len(vents) != 0 {
				t.Fatalf("a refused vent was recorded: %+v, %v", vents, err)
			}
		})
	}
}

func TestVentFieldsAtTheirLimitsAreKept(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session("")
	n := albedo.NewVent{
		Topic:      "workflow",
		Title:      strings.Repeat("é", ventTitleLimit),
		Message:    strings.Repeat("ü", ventTextLimit),
		Suggestion: strings.Repeat("s", ventTextLimit),
	}
	filed, err := r.svc.FileVent(r.ctx, sess.ID, n)
	if err != nil {
		t.Fatalf("a vent at the limits was refused: %v", err)
	}
	v, err := r.svc.Vent(r.ctx, filed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Title != n.Title || v.Message != n.Message || v.Suggestion != n.Suggestion {
		t.Errorf("stored vent lost text: title %d, message %d, suggestion %d bytes", len(v.Title), len(v.Message), len(v.Suggestion))
	}
}

func TestVentReplyAndResolutionOverTheLimitAreRefused(t *testing.T) {
	long := strings.Repeat("r", ventTextLimit+1)
	tests := []struct {
		name   string
		change func(r *rig, sess albedo.Session, v albedo.Vent) error
	}{
		{"reply", func(r *rig, _ albedo.Session, v albedo.Vent) error {
			_, _, err := r.svc.PatchVent(r.ctx, v.ID, v.Revision, albedo.VentPatch{Reply: ptr(long)})
			return err
		}},
		{"reply with a status", func(r *rig, _ albedo.Session, v albedo.Vent) error {
			status := albedo.VentDismissed
			_, _, err := r.svc.PatchVent(r.ctx, v.ID, v.Revision, albedo.VentPatch{Reply: &long, Status: &status})
			return err
		}},
		{"resolution note", func(r *rig, sess albedo.Session, v albedo.Vent) error {
			_, err := r.svc.ResolveVent(r.ctx, sess.ID, v.ID, long)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("x")))
			sess := r.session("")
			filed, err := r.svc.FileVent(r.ctx, sess.ID, albedo.NewVent{Topic: "bug", Message: "the tests are flaky"})
			if err != nil {
				t.Fatal(err)
			}
			wantCode(t, tc.change(r, sess, filed), albedo.EInvalid)

			v, err := r.svc.Vent(r.ctx, filed.ID)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != albedo.VentOpen || v.Reply != "" || v.Resolution != "" || v.ResolvingSessionID != "" || v.Revision != filed.Revision {
				t.Errorf("refused change was stored: %+v", v)
			}
			if n, err := r.svc.PendingReplies(r.ctx, sess.ID); err != nil || n != 0 {
				t.Errorf("pending replies after a refused change = %d, %v", n, err)
			}
		})
	}
}
