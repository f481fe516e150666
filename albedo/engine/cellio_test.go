package engine_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// memSpool is an albedo.OutputSpool in memory.
type memSpool struct {
	mu      sync.Mutex
	text    map[string]string
	removed []string
	flushed []string
}

func newMemSpool() *memSpool { return &memSpool{text: map[string]string{}} }

func spoolKey(session string, call int64) string { return fmt.Sprintf("%s/%d", session, call) }

func (m *memSpool) Append(_ context.Context, session string, call int64, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.text[spoolKey(session, call)] += text
	return nil
}

func (m *memSpool) Read(_ context.Context, session string, call int64) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.text[spoolKey(session, call)], nil
}

func (m *memSpool) Remove(_ context.Context, session string, call int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.text, spoolKey(session, call))
	m.removed = append(m.removed, spoolKey(session, call))
	return nil
}

func (m *memSpool) RemoveSession(_ context.Context, session string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key := range m.text {
		if strings.HasPrefix(key, session+"/") {
			delete(m.text, key)
			m.removed = append(m.removed, key)
		}
	}
	return nil
}

func (m *memSpool) Flush(_ context.Context, session string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.flushed = append(m.flushed, session)
	return nil
}

func (m *memSpool) flushes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.flushed)
}

func (m *memSpool) has(session string, call int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.text[spoolKey(session, call)]
	return ok
}

// spoolService rebuilds the rig's service with a spool, as the daemon has.
func (r *rig) spoolService(spool albedo.OutputSpool, store albedo.Store) {
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock, Spool: spool})
	r.svc = svc
	r.t.Cleanup(func() { _ = svc.Close(context.Background()) })
}

// What a cell prints reaches subscribers as output events naming its call,
// in order and before the tool event, and the spool until the output is
// recorded.
func TestCellOutputIsLiveAndSpooled(t *testing.T) {
	r := newRig(t, script(fakes.Text("done"), fakes.Python("work()")))
	spool := newMemSpool()
	r.spoolService(spool, r.store)
	var spooledDuringCell string
	r.kernel.SetResult(func(n int, cell albedo.Cell) (albedo.CellResult, error) {
		for _, piece := range []string{"one\n", "two\n", "three\n"} {
			cell.Output(piece)
		}
		spooledDuringCell, _ = spool.Read(context.Background(), cell.SessionID, cell.Call)
		return albedo.CellResult{Status: albedo.CellOK, Output: "one\ntwo\nthree\n"}, nil
	})
	sess := r.session("")
	sub, err := r.svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	r.send(sess.ID, "go")
	live := collectTurn(t, sub.Events)

	call := ofKind(r.history(sess.ID), albedo.KindToolCall)[0]
	var texts []string
	toolAt := -1
	for i, ev := range live {
		switch ev.Type {
		case wire.EventOutput:
			if toolAt >= 0 {
				t.Errorf("output event %d after the tool event", i)
			}
			if ev.Call != call.Seq {
				t.Errorf("output event names call %d, want %d", ev.Call, call.Seq)
			}
			texts = append(texts, ev.Text)
		case wire.EventTool:
			toolAt = i
		}
	}
	if got := strings.Join(texts, ""); got != "one\ntwo\nthree\n" {
		t.Errorf("output events say %q", got)
	}
	if spooledDuringCell != "one\ntwo\nthree\n" {
		t.Errorf("spool during the cell = %q", spooledDuringCell)
	}
	if spool.has(sess.ID, call.Seq) {
		t.Error("the spool still holds the output of a recorded cell")
	}
	out := ofKind(r.history(sess.ID), albedo.KindToolOutput)[0]
	if !strings.Contains(out.Text, `"duration_ms":`) {
		t.Errorf("the result %s has no duration_ms", out.Text)
	}
}

// A turn stopped by shutdown mid-cell writes its session's spooled output
// for the next process before it gives the session up; a turn that ends
// writes nothing more (its output is recorded).
func TestShutdownFlushesTheSpoolOfACellCut(t *testing.T) {
	r := newRig(t, script(fakes.Text("done"), fakes.Python("print(1)"), fakes.Text("done"), fakes.Python("spin()")))
	spool := newMemSpool()
	r.spoolService(spool, r.store)
	finished := r.session("")
	r.turn(finished.ID, "go")
	if got := spool.flushes(); len(got) != 0 {
		t.Errorf("a turn that ended flushed the spool of %v", got)
	}
	gate := r.kernel.BlockUntilCancelled()
	cut := r.session("")
	r.send(cut.ID, "go")
	<-gate.Entered()
	if err := r.svc.Close(r.ctx); err != nil {
		t.Fatal(err)
	}
	if got := spool.flushes(); !slices.Equal(got, []string{cut.ID}) {
		t.Errorf("flushed the spool of %v, want only the session whose cell was cut, %s", got, cut.ID)
	}
}

// After a crash, the call that was running gets what its cell had printed
// followed by the restart note, and the cell is not run again.
func TestRecoveredCellKeepsItsPrintedOutput(t *testing.T) {
	r := newRig(t, script(fakes.Text("resumed")))
	sess := r.seedCrashed("crashed")
	items, err := r.store.Items(r.ctx, sess.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	call := ofKind(items, albedo.KindToolCall)[0]
	spool := newMemSpool()
	_ = spool.Append(r.ctx, sess.ID, call.Seq, "step 1\nstep 2\n")
	r.spoolService(spool, r.store)
	if _, err := r.svc.Recover(r.ctx); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)

	out := ofKind(r.history(sess.ID), albedo.KindToolOutput)[0]
	if !strings.HasPrefix(out.Result.Output, "step 1\nstep 2\n") || !strings.HasSuffix(out.Result.Output, engine.RestartCellNote) {
		t.Errorf("recovered output = %q", out.Result.Output)
	}
	if out.Result.Status != albedo.CellInterrupted {
		t.Errorf("status = %s", out.Result.Status)
	}
	if n := len(r.kernel.Cells()); n != 0 {
		t.Errorf("%d cells ran after the restart", n)
	}
	if spool.has(sess.ID, call.Seq) {
		t.Error("the spool still holds the recovered output")
	}
}

// The end of a background job wakes an idle session once: a user message
// with source job starts a turn on the session's own provider.
func TestJobEndWakesAnIdleSession(t *testing.T) {
	r := newRig(t, script(fakes.Text("noted")))
	sess := r.session(chatProvider)
	end := albedo.JobEnd{ID: 3, ExitCode: 3, Duration: 2100 * time.Millisecond}
	if err := r.svc.JobFinished(r.ctx, sess.ID, end); err != nil {
		t.Fatal(err)
	}
	r.waitIdle(sess.ID)

	var woken []albedo.Item
	for _, it := range ofKind(r.history(sess.ID), albedo.KindUser) {
		if it.Source == engine.JobSource {
			woken = append(woken, it)
		}
	}
	want := "background job 3 finished (exit 3, 2.1 s): jobs()[3].tail() shows its last lines"
	if len(woken) != 1 || woken[0].Text != want {
		t.Fatalf("job messages = %+v, want one saying %q", woken, want)
	}
	reqs := r.provider.Requests()
	if len(reqs) != 1 || reqs[0].Endpoint.Provider != chatProvider {
		t.Fatalf("requests = %d, want one to %s", len(reqs), chatProvider)
	}
	if last := lastUserText(t, reqs[0].Input); last != `<system-note origin="job">`+want+"</system-note>" {
		t.Errorf("the model read %q", last)
	}
}

// A job that ends while the session is busy joins its next model request
// instead of starting a turn of its own.
func TestJobEndJoinsABusyTurn(t *testing.T) {
	r := newRig(t, script(fakes.Text("done"), fakes.Python("long()")))
	sess := r.session("")
	gate := fakes.NewGate()
	r.kernel.SetGate(gate)
	r.send(sess.ID, "go")
	<-gate.Entered()
	if err := r.svc.JobFinished(r.ctx, sess.ID, albedo.JobEnd{ID: 1}); err != nil {
		t.Fatal(err)
	}
	gate.Open()
	r.waitIdle(sess.ID)

	reqs := r.provider.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if last := lastUserText(t, reqs[1].Input); !strings.Contains(last, "background job 1 finished") {
		t.Errorf("the request after the cell ends with %q", last)
	}
	turns := ofKind(r.history(sess.ID), albedo.KindTurn)
	if len(turns) != 1 {
		t.Errorf("%d turns, want 1", len(turns))
	}
}

// The idle reaper spares a kernel whose background jobs still run.
func TestIdleReaperSparesKernelsWithJobs(t *testing.T) {
	provider := fakes.NewProvider(func(req albedo.ModelRequest) fakes.Reply {
		if strings.Contains(string(req.Input[len(req.Input)-1]), "function_call_output") {
			return fakes.Text("done")
		}
		return fakes.Python("x = 1")
	})
	kernel := fakes.NewKernel()
	svc := fixtureService(t, provider, kernel, albedo.ProtocolResponses, func(o *engine.Options) { o.KernelIdle = 50 * time.Millisecond })
	busy, idle := newSessionOf(t, svc, t.TempDir()), newSessionOf(t, svc, t.TempDir())
	kernel.SetRunningJobs(busy.ID, 1)
	// The session with a job runs its cell first, so it is idle for longer
	// in every pass of the reaper that stops the other.
	for _, id := range []string{busy.ID, idle.ID} {
		turnOf(t, svc, id, "set x")
	}
	waitFor(t, "the idle kernel to stop", func() bool { return slices.Contains(kernel.Stops(), idle.ID) })
	if slices.Contains(kernel.Stops(), busy.ID) {
		t.Error("the kernel with a running job was stopped for being idle")
	}
}

// tinyPNG returns a valid w×h PNG header (IHDR) followed by an IEND chunk.
func tinyPNG(w, h int) []byte {
	chunk := func(kind string, data []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = append(out, kind...)
		out = append(out, data...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	png := []byte("\x89PNG\r\n\x1a\n")
	png = append(png, chunk("IHDR", ihdr)...)
	return append(png, chunk("IEND", nil)...)
}

// An image a cell showed reaches the model with the tool output: inside
// the function_call_output in Responses, as a user message after the tool
// messages in Chat Completions; events show its metadata only, and a fork
// at the output keeps it.
func TestShownImagesReachTheModel(t *testing.T) {
	r := newRig(t, func(req albedo.ModelRequest) fakes.Reply {
		if last := string(req.Input[len(req.Input)-1]); strings.Contains(last, "function_call_output") || strings.Contains(last, `"role":"tool"`) || strings.Contains(last, "image_url") {
			return fakes.Text("I see it")
		}
		return fakes.Python("show_image('a.png')").WithPython("print(1)")
	})
	data := tinyPNG(2, 3)
	img := &albedo.Image{MimeType: "image/png", Width: 2, Height: 3, Bytes: len(data), Data: data}
	r.kernel.SetResult(func(n int, cell albedo.Cell) (albedo.CellResult, error) {
		if n%2 == 0 {
			return albedo.CellResult{Status: albedo.CellOK, Output: "1\n"}, nil
		}
		return albedo.CellResult{Status: albedo.CellOK, Images: []albedo.ImageMeta{*img.Meta()}, Shown: []*albedo.Image{img}}, nil
	})
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)

	for _, provider := range []string{respProvider, chatProvider} {
		{
			sess := r.session(provider)
			r.turn(sess.ID, "draw")
			reqs := r.provider.Requests()
			call := fakes.CallID(len(reqs)-1, 0)
			if provider == respProvider {
				checkResponsesImage(t, reqs[len(reqs)-1].Input, call, url)
			} else {
				checkChatImage(t, decodeInput(t, reqs[len(reqs)-1].Input), call, url)
			}

			history := r.history(sess.ID)
			images := ofKind(history, albedo.KindToolImage)
			if len(images) != 1 || images[0].CallID != call || images[0].Image.Width != 2 {
				t.Fatalf("tool images = %+v", images)
			}
			for _, ev := range displayEvents(history) {
				if ev.Type == wire.EventTool && ev.CallID == call && !strings.Contains(ev.Result, `"images":[{"mimeType":"image/png","width":2,"height":3,"bytes":`) {
					t.Errorf("tool event result %s does not describe the image", ev.Result)
				}
				if strings.Contains(ev.Result, "base64") || strings.Contains(ev.Text, "iVBOR") {
					t.Errorf("an event carries image data: %+v", ev)
				}
			}
			sub, err := r.svc.Subscribe(r.ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range sub.Snapshot {
				if ev.Seq == images[0].Seq {
					t.Errorf("the snapshot shows the image item as %+v", ev)
				}
			}
			sub.Close()
			output := ofKind(history, albedo.KindToolOutput)[0]
			branch, err := r.svc.Fork(r.ctx, sess.ID, output.Seq)
			if err != nil {
				t.Fatal(err)
			}
			if got := ofKind(r.history(branch.ID), albedo.KindToolImage); len(got) != 1 || string(got[0].Image.Data) != string(data) {
				t.Errorf("the fork kept %d images", len(got))
			}
			if provider == respProvider {
				// After /model to the other protocol, the image is still
				// there, where that protocol takes it.
				if _, err := r.svc.SwitchModel(r.ctx, sess.ID, chatProvider, "chat-model", nil); err != nil {
					t.Fatal(err)
				}
				r.turn(sess.ID, "again")
				reqs := r.provider.Requests()
				checkChatImage(t, decodeInput(t, reqs[len(reqs)-2].Input), call, url)
			}
		}
	}
}

// checkResponsesImage fails unless call's function_call_output carries its
// result text then the image.
func checkResponsesImage(t *testing.T, input []json.RawMessage, call, url string) {
	t.Helper()
	for _, raw := range input {
		var out struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &out) != nil || out.Type != "function_call_output" || out.CallID != call {
			continue
		}
		var parts []struct{ Type, Text, ImageURL string }
		var loose []map[string]string
		if err := json.Unmarshal(out.Output, &loose); err != nil {
			t.Fatalf("output of %s is not a list of parts: %s", call, out.Output)
		}
		for _, p := range loose {
			parts = append(parts, struct{ Type, Text, ImageURL string }{p["type"], p["text"], p["image_url"]})
		}
		if len(parts) != 2 || parts[0].Type != "input_text" || !strings.Contains(parts[0].Text, `"status":"ok"`) ||
			parts[1].Type != "input_image" || parts[1].ImageURL != url {
			t.Errorf("function_call_output parts = %+v", parts)
		}
		return
	}
	t.Fatalf("no function_call_output for %s", call)
}

// checkChatImage fails unless the image comes in a user message right
// after the reply's tool messages, marked as the python call's.
func checkChatImage(t *testing.T, input []inputMsg, call, url string) {
	t.Helper()
	for i, m := range input {
		if m.Role != "tool" || m.ToolCallID != call {
			continue
		}
		j := i + 1
		for j < len(input) && input[j].Role == "tool" {
			j++
		}
		if j >= len(input) || input[j].Role != "user" {
			t.Fatalf("no user message after the tool messages: %+v", input[i:])
		}
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if err := json.Unmarshal(input[j].Content, &parts); err != nil {
			t.Fatal(err)
		}
		if len(parts) != 2 || !strings.Contains(parts[0].Text, `<system-note origin="python">`) || !strings.Contains(parts[0].Text, call) ||
			parts[1].Type != "image_url" || parts[1].ImageURL.URL != url {
			t.Errorf("image message parts = %+v", parts)
		}
		return
	}
	t.Fatalf("no tool message for %s", call)
}

// A session whose kernel runs background jobs says how many in a "jobs"
// glance, so a client can show them; one with none has no such glance.
func TestTheGlancesCountRunningBackgroundJobs(t *testing.T) {
	kernel := fakes.NewKernel()
	svc := fixtureService(t, fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return fakes.Text("done") }), kernel, albedo.ProtocolResponses, func(*engine.Options) {})
	busy, quiet := newSessionOf(t, svc, t.TempDir()), newSessionOf(t, svc, t.TempDir())
	kernel.SetRunningJobs(busy.ID, 2)
	tests := []struct {
		session string
		want    albedo.Glance
	}{
		{busy.ID, albedo.Glance{"extension": "jobs", "running": float64(2)}},
		{quiet.ID, nil},
	}
	for _, tt := range tests {
		glances, err := svc.Glances(t.Context(), tt.session)
		if err != nil {
			t.Fatal(err)
		}
		var got albedo.Glance
		for _, g := range glances {
			if g["extension"] == "jobs" {
				got = g
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("jobs glance of %s = %#v, want %#v", tt.session, got, tt.want)
		}
	}
}
