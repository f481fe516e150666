package embedded_test

import (
	"context"
	"net"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/daemon"
	"github.com/albedo-agent/albedo/frontends/embedded"
	"github.com/albedo-agent/albedo/frontends/home"
)

// remote is what both an embedded albedo and the HTTP client offer today.
type remote interface {
	embedded.SessionAPI
	embedded.VentAPI
	Send(ctx context.Context, id, text string, img *embedded.Image) (bool, error)
	Status(ctx context.Context, id string) (bool, error)
	Interrupt(ctx context.Context, id string) error
}

// serve puts the daemon's HTTP API in front of a's service and returns a
// client of it: both then see the same sessions and vents.
func serve(t *testing.T, a *embedded.Albedo) *client.Client {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	srv.Config.Handler = daemon.NewHandler(daemon.APIOptions{Service: a.Service(), Token: "tok", Port: port})
	srv.Start()
	t.Cleanup(srv.Close)
	n, _ := strconv.Atoi(port)
	return client.New(home.Connection{Port: n, Token: "tok"})
}

// TestParity asks an embedded albedo and a daemon serving the same service
// the same questions, and checks that they answer alike: the same values,
// or errors with the same code.
func TestParity(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kernel := fakes.NewKernel()
	provider := script(fakes.Python("print(6 * 7)").WithReasoning("let me compute"), fakes.Text("42"))
	config := fakes.NewConfig("local",
		albedo.ProviderConfig{Name: "local", Model: "m1", Protocol: albedo.ProtocolChatCompletions},
		albedo.ProviderConfig{Name: "other", Model: "m2", Protocol: albedo.ProtocolResponses})
	a := mustOpen(t, embedded.Options{Store: memstore.New(), Provider: provider, Kernel: kernel, Config: config})
	c := serve(t, a)

	workspace, moved := t.TempDir(), t.TempDir()
	s, err := a.CreateSession(ctx, workspace, "")
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, a, s.ID, "What is 6 × 7?")
	v, err := a.Service().FileVent(ctx, s.ID, albedo.NewVent{Topic: "harness", Message: "slow tests"})
	if err != nil {
		t.Fatal(err)
	}
	vent := strconv.FormatInt(v.ID, 10)
	if _, err := a.Service().FileVent(ctx, "", albedo.NewVent{Topic: "other", Message: "no session"}); err != nil {
		t.Fatal(err)
	}

	// Each call is made on both sides; reads come before the writes they
	// would disturb.
	tests := []struct {
		name string
		call func(r remote) (any, error)
		// code is the error code both must give, "" for success.
		code string
	}{
		{"sessions", func(r remote) (any, error) { return r.Sessions(ctx) }, ""},
		{"session", func(r remote) (any, error) { return r.Session(ctx, s.ID, -1) }, ""},
		{"session tail 2", func(r remote) (any, error) { return r.Session(ctx, s.ID, 2) }, ""},
		{"session tail 0", func(r remote) (any, error) { return r.Session(ctx, s.ID, 0) }, ""},
		{"unknown session", func(r remote) (any, error) { return r.Session(ctx, "nope", 0) }, albedo.ENotFound},
		{"config", func(r remote) (any, error) { return r.Config(ctx, s.ID) }, ""},
		{"history", func(r remote) (any, error) { return r.History(ctx, s.ID) }, ""},
		{"history of unknown session", func(r remote) (any, error) { return r.History(ctx, "nope") }, albedo.ENotFound},
		{"tree", func(r remote) (any, error) { return r.Tree(ctx, s.ID, 0, 0) }, ""},
		{"tree page", func(r remote) (any, error) { return r.Tree(ctx, s.ID, 1, 2) }, ""},
		{"tree from before the start", func(r remote) (any, error) { return r.Tree(ctx, s.ID, -5, -1) }, ""},
		{"status", func(r remote) (any, error) { return r.Status(ctx, s.ID) }, ""},
		{"vents", func(r remote) (any, error) { return r.Vents(ctx, 0, "") }, ""},
		{"vents page", func(r remote) (any, error) { return r.Vents(ctx, 1, "") }, ""},
		{"vents default page", func(r remote) (any, error) { return r.Vents(ctx, -1, "") }, ""},
		{"vents after cursor", func(r remote) (any, error) { return r.Vents(ctx, 1, vent) }, ""},
		{"vents bad cursor", func(r remote) (any, error) { return r.Vents(ctx, 1, "x") }, albedo.EInvalid},
		{"vent", func(r remote) (any, error) { return r.Vent(ctx, vent) }, ""},
		{"unknown vent", func(r remote) (any, error) { return r.Vent(ctx, "999") }, albedo.ENotFound},
		{"bad vent id", func(r remote) (any, error) { return r.Vent(ctx, "x") }, albedo.ENotFound},
		{"empty message", func(r remote) (any, error) { return r.Send(ctx, s.ID, " ", nil) }, albedo.EInvalid},
		{"image mismatch", func(r remote) (any, error) {
			return r.Send(ctx, s.ID, "look", &embedded.Image{MimeType: "image/png", Data: pngData, Width: 2, Height: 1, Bytes: 67})
		}, albedo.EImageMismatch},
		{"relative workspace", func(r remote) (any, error) { return r.CreateSession(ctx, "rel", "") }, albedo.EInvalid},
		{"unknown provider", func(r remote) (any, error) { return r.CreateSession(ctx, workspace, "nope") }, albedo.ENoProvider},
		{"move to same workspace", func(r remote) (any, error) { return r.MoveWorkspace(ctx, s.ID, workspace) }, albedo.EWorkspaceRejected},
		{"fork unknown checkpoint", func(r remote) (any, error) { return r.Fork(ctx, s.ID, 999) }, albedo.ENotFound},
		{"unknown command", func(r remote) (any, error) { return r.Command(ctx, s.ID, "/nope", nil) }, albedo.EInvalid},
		{"command on unknown session", func(r remote) (any, error) { return r.Command(ctx, "nope", "/model", nil) }, albedo.ENotFound},
		{"switch to unknown provider", func(r remote) (any, error) { return r.SwitchModel(ctx, s.ID, "nope", "m") }, albedo.EConflict},
		{"switch without model", func(r remote) (any, error) { return r.SwitchModel(ctx, s.ID, "", "") }, albedo.EInvalid},
		{"interrupt idle", func(r remote) (any, error) { return nil, r.Interrupt(ctx, s.ID) }, ""},
		{"long name", func(r remote) (any, error) { return r.Rename(ctx, s.ID, string(make([]byte, 101))) }, albedo.EInvalid},
		{"reply to unknown vent", func(r remote) (any, error) { return r.ReplyVent(ctx, "999", "ok") }, albedo.ENotFound},
		{"empty reply", func(r remote) (any, error) { return r.ReplyVent(ctx, vent, " ") }, albedo.EInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local, lerr := tt.call(a)
			remote, rerr := tt.call(c)
			for side, err := range map[string]error{"embedded": lerr, "daemon": rerr} {
				if (err == nil) != (tt.code == "") || embedded.ErrorCode(err) != tt.code {
					t.Fatalf("%s: err = %v, want code %q", side, err, tt.code)
				}
			}
			if !reflect.DeepEqual(local, remote) {
				t.Errorf("answers differ:\nembedded: %#v\n  daemon: %#v", local, remote)
			}
		})
	}

	// Writes: each side makes its own change, and the results agree once
	// what must differ (ids, revisions, times) is set aside.
	t.Run("fork", func(t *testing.T) {
		lf, err := a.Fork(ctx, s.ID, 3)
		if err != nil {
			t.Fatal(err)
		}
		rf, err := c.Fork(ctx, s.ID, 3)
		if err != nil {
			t.Fatal(err)
		}
		if lf.ParentID != s.ID || lf.Checkpoint != 3 || !reflect.DeepEqual(sameSession(lf, rf), rf) {
			t.Errorf("forks differ:\nembedded: %+v\n  daemon: %+v", lf, rf)
		}
		lh, _ := a.History(ctx, lf.ID)
		rh, _ := c.History(ctx, rf.ID)
		for i := range lh {
			lh[i].Timestamp = 0
		}
		for i := range rh {
			rh[i].Timestamp = 0
		}
		if !reflect.DeepEqual(lh, rh) {
			t.Errorf("fork histories differ:\nembedded: %+v\n  daemon: %+v", lh, rh)
		}
	})
	t.Run("rename", func(t *testing.T) {
		l, err := a.Rename(ctx, s.ID, "mine")
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Rename(ctx, s.ID, "theirs")
		if err != nil {
			t.Fatal(err)
		}
		if l.Name != "mine" || r.Name != "theirs" || r.ETag == l.ETag {
			t.Errorf("renames: embedded %+v, daemon %+v", l, r)
		}
		if got, _ := a.Config(ctx, s.ID); got != r {
			t.Errorf("config after renames = %+v, want %+v", got, r)
		}
	})
	t.Run("switch model", func(t *testing.T) {
		l, lerr := a.SwitchModel(ctx, s.ID, "other", "m3")
		r, rerr := c.SwitchModel(ctx, s.ID, "other", "m3")
		if lerr != nil || rerr != nil || !reflect.DeepEqual(l, r) {
			t.Errorf("switches: embedded %+v (%v), daemon %+v (%v)", l, lerr, r, rerr)
		}
	})
	t.Run("move workspace", func(t *testing.T) {
		l, err := a.MoveWorkspace(ctx, s.ID, moved)
		if err != nil || l.Workspace != moved {
			t.Fatalf("move: %+v (%v)", l, err)
		}
		r, err := c.MoveWorkspace(ctx, s.ID, workspace)
		if err != nil || r.Workspace != workspace {
			t.Fatalf("move back: %+v (%v)", r, err)
		}
	})
	t.Run("vent triage", func(t *testing.T) {
		l, err := a.ReplyVent(ctx, vent, "thanks")
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Vent(ctx, vent)
		if err != nil || !reflect.DeepEqual(l.Vent, r) || l.State != "queued" || r.Status != "acknowledged" {
			t.Errorf("reply: embedded %+v, daemon sees %+v (%v)", l, r, err)
		}
		ld, lerr := a.Session(ctx, s.ID, 0)
		rd, rerr := c.Session(ctx, s.ID, 0)
		if lerr != nil || rerr != nil || len(ld.Glances) != 2 || !reflect.DeepEqual(ld, rd) {
			t.Errorf("glances with a pending reply:\nembedded: %+v (%v)\n  daemon: %+v (%v)", ld.Glances, lerr, rd.Glances, rerr)
		}
		d, err := c.DismissVent(ctx, vent)
		if err != nil || d.Status != "dismissed" {
			t.Fatalf("dismiss: %+v (%v)", d, err)
		}
		if err := a.DeleteVent(ctx, vent); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Vent(ctx, vent); embedded.ErrorCode(err) != albedo.ENotFound {
			t.Errorf("deleted vent: err = %v", err)
		}
	})
}

// sameSession returns l with the fields that differ between two forks of
// one checkpoint taken from r.
func sameSession(l, r embedded.Session) embedded.Session {
	l.ID, l.Revision, l.CreatedAt, l.UpdatedAt = r.ID, r.Revision, r.CreatedAt, r.UpdatedAt
	return l
}

// pngData is a 1×1 PNG of 67 bytes, base64-encoded.
const pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
