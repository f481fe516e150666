package embedded_test

import (
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

func TestFileVentJoinsTheLedger(t *testing.T) {
	a := openFake(t, script(fakes.Text("ok")))
	sess, err := a.CreateSession(t.Context(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	filed, err := a.FileVent(t.Context(), sess.ID, embedded.NewVent{Topic: "harness", Message: "the build hangs"})
	if err != nil {
		t.Fatal(err)
	}
	if filed.Title != "the build hangs" || filed.Status != "open" {
		t.Errorf("filed %+v", filed)
	}
	page, err := a.Vents(t.Context(), 10, "")
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != filed.ID {
		t.Fatalf("ledger = %+v, %v", page, err)
	}
	if _, err := a.FileVent(t.Context(), sess.ID, embedded.NewVent{Topic: "nonsense", Message: "x"}); wire.ErrorCode(err) != albedo.EInvalid {
		t.Errorf("unknown topic: err = %v", err)
	}
}
