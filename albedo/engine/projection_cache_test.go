package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/projection"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"pgregory.net/rapid"
)

// reference is what a request over items must carry: the whole transcript
// projected afresh.
func reference(items []albedo.Item, comp *albedo.Compaction, ep albedo.Endpoint) []json.RawMessage {
	if comp == nil {
		return projection.ProjectFor(items, ep)
	}
	return projection.ProjectCompacted(items, *comp, ep)
}

func sameInput(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// userCount counts the user messages of items.
func userCount(items []albedo.Item) int {
	n := 0
	for _, it := range items {
		if it.Kind == albedo.KindUser {
			n++
		}
	}
	return n
}

// TestIncrementalProjectionEqualsAFreshOne grows random transcripts (late
// and duplicate outputs, orphans, images, calls reusing an id, both
// protocols, native JSON or none) and, between any steps, builds a request
// under a random endpoint (protocol, reasoning_content) and compaction
// state (none, one that applies, one whose fingerprint does not match),
// sometimes after the cache was dropped: the input is always byte for byte
// what projecting the whole transcript afresh gives.
func TestIncrementalProjectionEqualsAFreshOne(t *testing.T) {
	endpoints := []albedo.Endpoint{
		{Protocol: chat}, {Protocol: chat, ReasoningContent: true}, {Protocol: resp},
	}
	rapid.Check(t, func(rt *rapid.T) {
		g := &transcriptGen{t: rt, late: rapid.Bool().Draw(rt, "late")}
		var proj engine.IncrementalProjection
		var comp *albedo.Compaction
		ep := endpoints[rapid.IntRange(0, len(endpoints)-1).Draw(rt, "endpoint")]
		step := func(f func()) func(*rapid.T) {
			return func(rt *rapid.T) {
				g.t = rt
				f()
			}
		}
		request := func(rt *rapid.T) {
			got := proj.Project(g.items, comp, ep)
			want := reference(g.items, comp, ep)
			if !sameInput(got, want) {
				rt.Fatalf("after %d items (%s, reasoning %v, compaction %+v) got\n%s\nwant\n%s",
					len(g.items), ep.Protocol, ep.ReasoningContent, comp, join(got), join(want))
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"user":      step(g.user),
			"reasoning": step(g.reasoning),
			"text":      step(g.text),
			"reply":     step(g.reply),
			"call":      step(g.call),
			"output":    step(g.output),
			"orphan": step(func() {
				g.add(albedo.Item{Kind: albedo.KindToolOutput, CallID: fmt.Sprintf("orphan-%d", len(g.items)), Text: "orphan"})
			}),
			"noise": step(func() {
				k := rapid.SampledFrom([]albedo.ItemKind{albedo.KindError, albedo.KindTurn}).Draw(g.t, "noise")
				g.add(albedo.Item{Kind: k, Text: "noise"})
			}),
			"again": step(func() {
				// An item carrying the id of an earlier call: a second
				// output, a late image, or a call reusing the id.
				if g.calls == 0 {
					return
				}
				id := fmt.Sprintf("call-%d", rapid.IntRange(1, g.calls).Draw(g.t, "earlier call"))
				k := rapid.SampledFrom([]albedo.ItemKind{albedo.KindToolOutput, albedo.KindToolImage, albedo.KindToolCall}).Draw(g.t, "kind")
				it := albedo.Item{Kind: k, CallID: id, ToolName: "python", Text: "again " + id, Arguments: "{}"}
				if k == albedo.KindToolImage {
					it.Image = &albedo.Image{MimeType: "image/png", Data: []byte("late")}
				}
				g.add(it)
			}),
			"image": step(func() {
				// What a cell showed, right after its output.
				if n := len(g.items); n > 0 && g.items[n-1].Kind == albedo.KindToolOutput {
					last := g.items[n-1]
					for range rapid.IntRange(1, 2).Draw(g.t, "images") {
						g.add(albedo.Item{Kind: albedo.KindToolImage, CallID: last.CallID, ToolName: last.ToolName,
							Text: "image of " + last.CallID, Image: &albedo.Image{MimeType: "image/png", Data: []byte("png")}})
					}
				}
			}),
			"request":  request,
			"request2": request,
			"endpoint": func(rt *rapid.T) {
				ep = endpoints[rapid.IntRange(0, len(endpoints)-1).Draw(rt, "endpoint")]
			},
			"compact": func(rt *rapid.T) {
				users := userCount(g.items)
				switch rapid.IntRange(0, 3).Draw(rt, "compaction") {
				case 0:
					comp = nil
				case 1:
					comp = &albedo.Compaction{Summary: "a summary", Users: users + 1, Fingerprint: "none"}
				default:
					if users < 2 {
						return
					}
					k := rapid.IntRange(1, users-1).Draw(rt, "summarised users")
					comp = &albedo.Compaction{Summary: fmt.Sprintf("summary of %d", k), Users: k, Fingerprint: compaction.Fingerprint(g.items, k)}
				}
			},
			"drop": func(*rapid.T) { proj.Drop() },
		})
		request(rt)
	})
}

func join(input []json.RawMessage) string {
	var b bytes.Buffer
	for _, raw := range input {
		b.Write(raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestIncrementalProjectionKeepsToolRounds checks that a turn of tool
// rounds keeps what it projected: after each round, the kept projection
// covers the whole transcript, in both protocols; and that the next user
// message, which takes the turn's reasoning out of a Chat Completions
// request, is still projected right.
func TestIncrementalProjectionKeepsToolRounds(t *testing.T) {
	for _, ep := range []albedo.Endpoint{{Protocol: chat}, {Protocol: chat, ReasoningContent: true}, {Protocol: resp}} {
		t.Run(fmt.Sprintf("%s reasoning %v", ep.Protocol, ep.ReasoningContent), func(t *testing.T) {
			var proj engine.IncrementalProjection
			items := []albedo.Item{{Kind: albedo.KindUser, Text: "go", Seq: 1}}
			add := func(it albedo.Item) {
				it.Seq = int64(len(items) + 1)
				items = append(items, it)
			}
			for round := range 50 {
				id := fmt.Sprintf("call-%d", round)
				add(albedo.Item{Kind: albedo.KindReasoning, Text: "hmm", Protocol: ep.Protocol})
				add(albedo.Item{Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: `{"code":"1"}`, Protocol: ep.Protocol})
				add(albedo.Item{Kind: albedo.KindToolOutput, CallID: id, ToolName: "python", Text: `{"status":"ok"}`})
				got := proj.Project(items, nil, ep)
				if !sameInput(got, projection.ProjectFor(items, ep)) {
					t.Fatalf("round %d: the input differs from a fresh projection", round)
				}
				if proj.Kept() != len(items) {
					t.Fatalf("round %d: keeps %d of %d items", round, proj.Kept(), len(items))
				}
			}
			// The next message ends the turn whose reasoning a Chat
			// Completions provider that takes it back was given.
			add(albedo.Item{Kind: albedo.KindUser, Text: "and now?"})
			if !sameInput(proj.Project(items, nil, ep), projection.ProjectFor(items, ep)) {
				t.Fatal("after the next message: the input differs from a fresh projection")
			}
		})
	}
}

// Native JSON is sent as it is, so JSON a store mangled must not reach a
// request: such items are projected from their fields.
func TestProjectIgnoresRawThatIsNotJSON(t *testing.T) {
	for _, p := range []albedo.Protocol{chat, resp} {
		t.Run(string(p), func(t *testing.T) {
			items := []albedo.Item{
				{Kind: albedo.KindUser, Text: "go"},
				{Kind: albedo.KindAssistant, Text: "let me see", Protocol: p, Raw: json.RawMessage(`{"role":"assist`)},
				{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: `{"code":"1"}`, Protocol: p, Raw: json.RawMessage(`{"id":"c1",`)},
				{Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", Text: "1"},
			}
			input := projection.Project(items, p)
			for _, raw := range input {
				if !json.Valid(raw) {
					t.Fatalf("sent %s", raw)
				}
			}
			if whole := join(input); !bytes.Contains([]byte(whole), []byte(`"c1"`)) || !bytes.Contains([]byte(whole), []byte("let me see")) {
				t.Fatalf("the call or the text is missing:\n%s", whole)
			}
		})
	}
}

// TestEveryRequestIsAFreshProjection drives sessions through what changes
// a request: tool rounds, /compact, a /model switch to the other protocol,
// a restart, a fork and a delete of another session. Every turn request
// the provider receives carries exactly what projecting the stored
// transcript afresh, from its compaction state, gives.
func TestEveryRequestIsAFreshProjection(t *testing.T) {
	r := newRig(t, nil)
	requests := 0
	r.provider = fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		if req.Instructions == compaction.SummaryInstructions {
			return fakes.Text("SUMMARY so far")
		}
		requests++
		items, err := r.store.Items(r.ctx, req.SessionID, 0, 0)
		if err != nil {
			t.Errorf("read the transcript: %v", err)
			return fakes.Text("done")
		}
		var comp *albedo.Compaction
		if c, err := r.store.Compaction(r.ctx, req.SessionID); err == nil {
			comp = &c
		}
		if want := reference(items, comp, req.Endpoint); !sameInput(req.Input, want) {
			t.Errorf("request %d (%s, compacted %v) carries\n%s\nwant\n%s", requests, req.Endpoint.Protocol, comp != nil, join(req.Input), join(want))
		}
		if requests%4 == 0 {
			return fakes.Text("done")
		}
		return fakes.Python("1").WithReasoning("a thought")
	})
	r.svc = r.newService()
	sess := r.session(respProvider)
	other := r.session(chatProvider)
	r.turn(sess.ID, "first")
	r.turn(other.ID, "elsewhere")
	r.turn(sess.ID, "second")
	if out, err := r.svc.RunCommand(r.ctx, sess.ID, "/compact", nil); err != nil || out.Compact == nil || !out.Compact.Started {
		t.Fatalf("/compact = %#v, %v", out, err)
	}
	r.waitIdle(sess.ID)
	r.turn(sess.ID, "third")
	if _, err := r.svc.SwitchModel(r.ctx, sess.ID, chatProvider, "chat-model", nil); err != nil {
		t.Fatal(err)
	}
	r.turn(sess.ID, "fourth")
	if err := r.svc.DeleteSession(r.ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	r.svc = r.newService()
	r.turn(sess.ID, "fifth")
	answers := ofKind(r.history(sess.ID), albedo.KindAssistant)
	branch, err := r.svc.Fork(r.ctx, sess.ID, answers[len(answers)-1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	r.turn(branch.ID, "sixth")
	r.turn(sess.ID, "seventh")
	if requests < 30 {
		t.Fatalf("only %d turn requests were checked", requests)
	}
}
