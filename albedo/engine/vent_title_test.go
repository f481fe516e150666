package engine_test

import (
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestAVentKeepsTheTitleItWasGiven(t *testing.T) {
	for _, c := range []struct {
		name, title, want string
	}{
		{"a title", "the harness hangs", "the harness hangs"},
		{"a blank title is given, so kept", "\n", "\n"},
		{"spaces are given, so kept", "  ", "  "},
		{"no title: a preview of the message", "", "the kernel died …"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("x")))
			sess := r.session("")
			filed, err := r.svc.FileVent(r.ctx, sess.ID, albedo.NewVent{Topic: "bug", Title: c.title, Message: "the kernel died\nagain"})
			if err != nil {
				t.Fatal(err)
			}
			one, err := r.svc.Vent(r.ctx, filed.ID)
			if err != nil {
				t.Fatal(err)
			}
			if one.Title != c.want {
				t.Errorf("one vent's title = %q, want %q", one.Title, c.want)
			}
			listed, _, err := r.svc.VentPage(r.ctx, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range listed {
				if v.ID == filed.ID && v.Title != c.want {
					t.Errorf("listed vent's title = %q, want %q", v.Title, c.want)
				}
			}
		})
	}
}
