package engine_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// hostVent decodes the answer of a vent host call.
func hostVent(t *testing.T, raw json.RawMessage) albedo.ModelVent {
	t.Helper()
	var v albedo.ModelVent
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

func TestHostCallVentRefusals(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	sess := r.session("")
	tests := []struct {
		name string
		call string
		args string
		want string
	}{
		{"unknown topic", "vent", `{"topic":"rant","message":"the harness is slow"}`, "unknown vent topic"},
		{"no topic", "vent", `{"message":"the harness is slow"}`, "unknown vent topic"},
		{"blank message", "vent", `{"topic":"bug","message":"  \n "}`, "needs a message"},
		{"long title", "vent", `{"topic":"bug","message":"m","title":"` + strings.Repeat("t", 201) + `"}`, "title"},
		{"bad json", "vent", `["bug"]`, "bad arguments"},
		{"unknown call", "shell", `{}`, "no host call"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.svc.HostCall(r.ctx, sess.ID, tc.call, json.RawMessage(tc.args))
			wantCode(t, err, albedo.EInvalid)
			if !strings.Contains(albedo.ErrorMessage(err), tc.want) {
				t.Errorf("message %q does not mention %q", albedo.ErrorMessage(err), tc.want)
			}
		})
	}
	if vents, _, err := r.svc.VentPage(r.ctx, 0, 0); err != nil || len(vents) != 0 {
		t.Fatalf("refused vents were recorded: %+v, %v", vents, err)
	}
}

func TestHostCallVentLifecycle(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	filer := r.session("")
	fixer := r.session(chatProvider)

	raw, err := r.svc.HostCall(r.ctx, filer.ID, "vent", json.RawMessage(`{"topic":"harness","message":"pip is blocked\nno network at all","suggestion":"vendor wheels"}`))
	if err != nil {
		t.Fatal(err)
	}
	v := hostVent(t, raw)
	if v.ID != 1 || v.Topic != "harness" || v.Title != "pip is blocked …" || v.Status != "open" ||
		v.SessionID != filer.ID || v.Workspace != filer.Workspace || v.Suggestion != "vendor wheels" || v.CreatedAt == "" {
		t.Errorf("filed vent = %+v", v)
	}
	raw, err = r.svc.HostCall(r.ctx, filer.ID, "vent", json.RawMessage(`{"topic":"bug","message":"second","title":"Own title"}`))
	if err != nil || hostVent(t, raw).Title != "Own title" {
		t.Fatalf("vent with a title = %s, %v", raw, err)
	}

	raw, err = r.svc.HostCall(r.ctx, fixer.ID, "vents", nil)
	if err != nil {
		t.Fatal(err)
	}
	var list []albedo.ModelVent
	if err := json.Unmarshal(raw, &list); err != nil || len(list) != 2 || list[0].ID != 2 || list[1].ID != 1 {
		t.Fatalf("vents = %s, %v", raw, err)
	}

	resolve := func(args string) (albedo.ModelVent, error) {
		raw, err := r.svc.HostCall(r.ctx, fixer.ID, "resolve_vent", json.RawMessage(args))
		if err != nil {
			return albedo.ModelVent{}, err
		}
		return hostVent(t, raw), nil
	}
	refusals := []struct {
		name, args, code, want string
	}{
		{"blank note", `{"id":1,"note":"   "}`, albedo.EInvalid, "say what fixed the vent"},
		{"bad id", `{"id":"one","note":"x"}`, albedo.EInvalid, "vent id"},
		{"no id", `{"note":"x"}`, albedo.EInvalid, "vent id"},
		{"unknown vent", `{"id":42,"note":"x"}`, albedo.ENotFound, "42"},
		{"bad json", `"x"`, albedo.EInvalid, "bad arguments"},
	}
	for _, tc := range refusals {
		_, err := resolve(tc.args)
		if albedo.ErrorCode(err) != tc.code || !strings.Contains(albedo.ErrorMessage(err), tc.want) {
			t.Errorf("%s: error %v (%s), want %s mentioning %q", tc.name, err, albedo.ErrorCode(err), tc.code, tc.want)
		}
	}
	if got, _ := r.svc.Vent(r.ctx, 1); got.Status != albedo.VentOpen || got.Revision != 1 {
		t.Fatalf("refused resolutions changed the vent: %+v", got)
	}

	resolved, err := resolve(`{"id":"1","note":"  vendored the wheels  "}`)
	if err != nil {
		t.Fatal(err)
	}
	if resolved.Status != "resolved" || resolved.Resolution != "vendored the wheels" || resolved.ResolvingSessionID != fixer.ID || resolved.SessionID != filer.ID {
		t.Errorf("resolved = %+v", resolved)
	}
	_, err = resolve(`{"id":1,"note":"again"}`)
	if err == nil || !strings.Contains(albedo.ErrorMessage(err), "vent #1 is already resolved") {
		t.Errorf("second resolution = %v", err)
	}
}

func TestReplyVentNotifiesFilingSession(t *testing.T) {
	r := newRig(t, script(fakes.Text("noted")))
	filer := r.session("")
	other := r.session("")
	gone := "session-that-was-deleted"

	file := func(sessionID, msg string) albedo.Vent {
		v, err := r.svc.FileVent(r.ctx, sessionID, albedo.NewVent{Topic: "workflow", Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name    string
		session string
		note    string
	}{
		{"live session", filer.ID, engine.NoteQueued},
		{"deleted session", gone, engine.NoteSessionGone},
		{"no session", "", engine.NoteNoSession},
	}
	var replied albedo.Vent
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := file(tc.session, "tests take too long in "+tc.name)
			got, note, err := r.svc.PatchVent(r.ctx, v.ID, v.Revision, albedo.VentPatch{Reply: ptr("use -short")})
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != albedo.VentAcknowledged || got.Reply != "use -short" || got.Revision != v.Revision+1 || note != tc.note {
				t.Errorf("reply = %+v, note %q; want acknowledged, note %q", got, note, tc.note)
			}
			_, _, err = r.svc.PatchVent(r.ctx, v.ID, v.Revision, albedo.VentPatch{Reply: ptr("stale reply")})
			wantCode(t, err, albedo.EStale)
			if tc.note == engine.NoteQueued {
				replied = got
			}
		})
	}
	if n, err := r.svc.PendingReplies(r.ctx, filer.ID); err != nil || n != 1 {
		t.Fatalf("pending replies of the filer = %d, %v", n, err)
	}
	if n, _ := r.svc.PendingReplies(r.ctx, other.ID); n != 0 {
		t.Fatalf("pending replies of another session = %d", n)
	}
	_, _, err := r.svc.PatchVent(r.ctx, replied.ID, replied.Revision, albedo.VentPatch{Reply: ptr("  ")})
	wantCode(t, err, albedo.EInvalid)
	_, _, err = r.svc.PatchVent(r.ctx, 999, 1, albedo.VentPatch{Reply: ptr("x")})
	wantCode(t, err, albedo.ENotFound)

	r.turn(other.ID, "unrelated")
	r.turn(filer.ID, "carry on")
	reqs := r.provider.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, text := range userTexts(t, reqs[0].Input) {
		if strings.Contains(text, "use -short") {
			t.Errorf("another session got the reply: %q", text)
		}
	}
	texts := userTexts(t, reqs[1].Input)
	if len(texts) != 2 || texts[1] != "carry on" {
		t.Fatalf("filer's user messages = %q", texts)
	}
	want := fmt.Sprintf(`<system-note origin="%s">Reply to your vent #%d`, albedo.ReplySource, replied.ID)
	if !strings.HasPrefix(texts[0], want) || !strings.Contains(texts[0], "answers: use -short") {
		t.Errorf("reply message = %q", texts[0])
	}
	if n, _ := r.svc.PendingReplies(r.ctx, filer.ID); n != 0 {
		t.Errorf("%d replies still pending after the turn", n)
	}
	items := r.history(filer.ID)
	if items[0].Source != albedo.ReplySource || items[1].Text != "carry on" {
		t.Errorf("filer transcript = %+v", items[:2])
	}
	if got := r.get(filer.ID).Title; got != "carry on" {
		t.Errorf("title = %q, want the user's message, not the reply", got)
	}
}

func TestVentStatusAndDelete(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	v, err := r.svc.FileVent(r.ctx, "", albedo.NewVent{Topic: "other", Message: "meh"})
	if err != nil {
		t.Fatal(err)
	}
	setStatus := func(id, revision int64, status albedo.VentStatus) (albedo.Vent, error) {
		v, _, err := r.svc.PatchVent(r.ctx, id, revision, albedo.VentPatch{Status: &status})
		return v, err
	}
	_, err = setStatus(v.ID, v.Revision, "closed")
	wantCode(t, err, albedo.EInvalid)
	_, err = setStatus(v.ID, v.Revision+1, albedo.VentDismissed)
	wantCode(t, err, albedo.EStale)
	_, err = setStatus(v.ID, -1, albedo.VentDismissed)
	wantCode(t, err, albedo.ERevisionRequired)
	dismissed, err := setStatus(v.ID, v.Revision, albedo.VentDismissed)
	if err != nil || dismissed.Status != albedo.VentDismissed || !dismissed.Status.Closed() {
		t.Fatalf("dismiss = %+v, %v", dismissed, err)
	}
	_, err = r.svc.ResolveVent(r.ctx, "s", v.ID, "fixed")
	wantCode(t, err, albedo.EConflict)

	wantCode(t, r.svc.DeleteVent(r.ctx, v.ID, 0), albedo.ERevisionRequired)
	wantCode(t, r.svc.DeleteVent(r.ctx, v.ID, v.Revision), albedo.EStale)
	if err := r.svc.DeleteVent(r.ctx, v.ID, dismissed.Revision); err != nil {
		t.Fatal(err)
	}
	_, err = r.svc.Vent(r.ctx, v.ID)
	wantCode(t, err, albedo.ENotFound)
}

func TestVentsPaging(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	for i := range 7 {
		if _, err := r.svc.FileVent(r.ctx, "", albedo.NewVent{Topic: "bug", Message: fmt.Sprintf("vent %d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		before  int64
		limit   int
		wantIDs []int64
	}{
		{0, 3, []int64{7, 6, 5}},
		{5, 3, []int64{4, 3, 2}},
		{2, 3, []int64{1}},
		{0, 0, []int64{7, 6, 5, 4, 3, 2, 1}},
	}
	for _, tc := range tests {
		vents, _, err := r.svc.VentPage(r.ctx, tc.before, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, v := range vents {
			ids = append(ids, v.ID)
			if v.Title != fmt.Sprintf("vent %d", v.ID) {
				t.Errorf("vent %d title %q", v.ID, v.Title)
			}
		}
		if fmt.Sprint(ids) != fmt.Sprint(tc.wantIDs) {
			t.Errorf("Vents(%d, %d) = %v, want %v", tc.before, tc.limit, ids, tc.wantIDs)
		}
	}
}

func TestConcurrentReplyAndResolveLoseNothing(t *testing.T) {
	for _, conditional := range []bool{true, false} {
		t.Run(fmt.Sprintf("conditional=%v", conditional), func(t *testing.T) {
			testReplyResolveRace(t, conditional)
		})
	}
}

// testReplyResolveRace races a reply (conditional on the filed revision, or
// unconditional with revision 0) against a resolution.
func testReplyResolveRace(t *testing.T, conditional bool) {
	r := newRig(t, script(fakes.Text("x")))
	filer := r.session("")
	const rounds = 50
	for i := range rounds {
		v, err := r.svc.FileVent(r.ctx, filer.ID, albedo.NewVent{Topic: "bug", Message: fmt.Sprintf("race %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		var (
			wg                   sync.WaitGroup
			start                = make(chan struct{})
			replyErr, resolveErr error
		)
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			rev := v.Revision
			if !conditional {
				rev = 0
			}
			_, _, replyErr = r.svc.PatchVent(r.ctx, v.ID, rev, albedo.VentPatch{Reply: ptr("reply")})
		}()
		go func() {
			defer wg.Done()
			<-start
			_, resolveErr = r.svc.ResolveVent(r.ctx, "fixer", v.ID, "resolved it")
		}()
		close(start)
		wg.Wait()
		for _, err := range []error{replyErr, resolveErr} {
			if err != nil && !errorIs(err, albedo.EStale) {
				t.Fatalf("round %d: failure %v is not stale", i, err)
			}
		}
		if !conditional && (replyErr != nil || resolveErr != nil) {
			t.Fatalf("round %d: unconditional writes failed: %v / %v", i, replyErr, resolveErr)
		}
		got, err := r.svc.Vent(r.ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if resolveErr == nil && (got.Status != albedo.VentResolved || got.Resolution != "resolved it") {
			t.Fatalf("round %d: resolution lost: %+v", i, got)
		}
		if replyErr == nil && got.Reply != "reply" {
			t.Fatalf("round %d: reply lost: %+v", i, got)
		}
		wantRev := v.Revision
		for _, err := range []error{replyErr, resolveErr} {
			if err == nil {
				wantRev++
			}
		}
		if got.Revision != wantRev {
			t.Fatalf("round %d: revision %d, want %d", i, got.Revision, wantRev)
		}
	}
}

func TestConcurrentResolversOneWins(t *testing.T) {
	r := newRig(t, script(fakes.Text("x")))
	v, err := r.svc.FileVent(r.ctx, "", albedo.NewVent{Topic: "bug", Message: "race"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.svc.ResolveVent(r.ctx, fmt.Sprintf("s%d", i), v.ID, fmt.Sprintf("fix %d", i))
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errorIs(err, albedo.EConflict), errorIs(err, albedo.EStale):
		default:
			t.Errorf("unexpected failure %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d resolutions won, want exactly 1", wins)
	}
	got, _ := r.svc.Vent(r.ctx, v.ID)
	if got.Revision != 2 || got.Status != albedo.VentResolved {
		t.Errorf("vent = %+v", got)
	}
}

func TestGlancesShowPendingRepliesNeverOpenVents(t *testing.T) {
	r := newRig(t, func(albedo.ModelRequest) fakes.Reply { return fakes.Text("ok") })
	sess := r.session("")
	ctx := r.ctx
	v, err := r.svc.FileVent(ctx, sess.ID, albedo.NewVent{Topic: "bug", Message: "it broke"})
	if err != nil {
		t.Fatal(err)
	}
	extensions := func() []string {
		glances, err := r.svc.Glances(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range glances {
			names = append(names, g["extension"].(string))
		}
		return names
	}
	if got := extensions(); slices.Contains(got, "paperclips") {
		t.Errorf("an open vent shows in the glances %v", got)
	}
	if _, _, err := r.svc.PatchVent(ctx, v.ID, v.Revision, albedo.VentPatch{Reply: ptr("thanks")}); err != nil {
		t.Fatal(err)
	}
	if got := extensions(); !slices.Contains(got, "paperclips") {
		t.Errorf("a pending reply is missing from the glances %v", got)
	}
}

func TestVentPagesAreBoundedAndLinked(t *testing.T) {
	r := newRig(t, func(albedo.ModelRequest) fakes.Reply { return fakes.Text("ok") })
	sess := r.session("")
	for i := range engine.MaxVentPage + 5 {
		if _, err := r.svc.FileVent(r.ctx, sess.ID, albedo.NewVent{Topic: "bug", Message: fmt.Sprintf("complaint %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		limit, want int
		more        bool
	}{
		{0, engine.DefaultVentPage, true},
		{3, 3, true},
		{engine.MaxVentPage + 100, engine.MaxVentPage, true},
	}
	for _, tt := range tests {
		page, next, err := r.svc.VentPage(r.ctx, 0, tt.limit)
		if err != nil || len(page) != tt.want || (next > 0) != tt.more {
			t.Errorf("VentPage(limit %d) = %d vents, next %d, %v", tt.limit, len(page), next, err)
		}
	}
	seen := 0
	for before := int64(0); ; {
		page, next, err := r.svc.VentPage(r.ctx, before, engine.MaxVentPage)
		if err != nil {
			t.Fatal(err)
		}
		seen += len(page)
		if next == 0 {
			break
		}
		before = next
	}
	if seen != engine.MaxVentPage+5 {
		t.Errorf("paging saw %d vents, want %d", seen, engine.MaxVentPage+5)
	}
}
