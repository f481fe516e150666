package pykernel

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// hostCall is one call a fake host received.
type hostCall struct {
	session, name, args string
}

// fakeHost answers vent calls like a small ledger and records every call.
type fakeHost struct {
	mu    sync.Mutex
	calls []hostCall
}

func (h *fakeHost) call(ctx context.Context, session, name string, args json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	h.calls = append(h.calls, hostCall{session, name, string(args)})
	h.mu.Unlock()
	switch name {
	case "vent":
		var v struct{ Topic, Message string }
		if err := json.Unmarshal(args, &v); err != nil {
			return nil, err
		}
		if strings.TrimSpace(v.Message) == "" {
			return nil, errors.New("say what went wrong")
		}
		return json.RawMessage(`{"id": 7, "status": "open", "topic": "` + v.Topic + `"}`), nil
	case "vents":
		return json.RawMessage(`[{"id": 7, "status": "open"}]`), nil
	case "resolve_vent":
		return nil, errors.New("vent #7 is already resolved")
	case "nothing", "clock":
		return nil, nil
	case "invalid":
		return json.RawMessage(`{`), nil
	case "panic":
		panic("host bug")
	case "slow":
		select {
		case <-time.After(200 * time.Millisecond):
			return json.RawMessage(`"slept"`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, errors.New("no such host call")
}

// ventCalls declare the vent host calls the way albedo does.
var ventCalls = []albedo.HostCallDecl{
	{Name: "vent", Doc: "Files a vent.", Params: []albedo.HostParam{{Name: "topic"}, {Name: "message"}, {Name: "suggestion", Optional: true}, {Name: "title", Optional: true}}},
	{Name: "vents"},
	{Name: "resolve_vent", Params: []albedo.HostParam{{Name: "id"}, {Name: "note"}}},
}

// cell returns a cell of session "h" that declares calls (ventCalls when
// nil) and whose host calls go to h.
func (h *fakeHost) cell(workspace, code string, calls ...albedo.HostCallDecl) albedo.Cell {
	if calls == nil {
		calls = ventCalls
	}
	return albedo.Cell{
		SessionID: "h", Workspace: workspace, Code: code, HostCalls: calls,
		Host: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
			return h.call(ctx, "h", name, args)
		},
	}
}

// runHost runs code in session "h" with h answering its host calls.
func (h *fakeHost) run(t *testing.T, k *Kernels, workspace, code string, calls ...albedo.HostCallDecl) albedo.CellResult {
	t.Helper()
	return runCell(t, k, context.Background(), h.cell(workspace, code, calls...))
}

func TestHostCalls(t *testing.T) {
	host := &fakeHost{}
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	tests := []struct {
		name   string
		code   string
		status albedo.CellStatus
		output string
		value  string
		call   *hostCall // the call the host saw, if any
	}{
		{
			name:  "vent round trip",
			code:  "v = await vent('harness', 'a job stalled', suggestion='report it', title='stalled')\nv['id'], v['status']",
			value: "(7, 'open')",
			call:  &hostCall{"h", "vent", `{"topic": "harness", "message": "a job stalled", "suggestion": "report it", "title": "stalled"}`},
		},
		{
			name:  "optional arguments left out are absent",
			code:  "(await vent('bug', 'broken'))['topic']",
			value: "'bug'",
			call:  &hostCall{"h", "vent", `{"topic": "bug", "message": "broken"}`},
		},
		{
			name:  "arguments by name",
			code:  "(await vent(message='broken', topic='bug', title=None))['topic']",
			value: "'bug'",
			call:  &hostCall{"h", "vent", `{"topic": "bug", "message": "broken", "title": null}`},
		},
		{
			name:   "a missing argument raises before any call",
			code:   "try:\n    await vent('bug')\nexcept TypeError as e:\n    print(e)",
			output: "vent() missing required argument(s): message\n",
		},
		{
			name:   "an unknown argument raises",
			code:   "try:\n    await vents(limit=3)\nexcept TypeError as e:\n    print(e)",
			output: "vents() got an unexpected keyword argument 'limit'\n",
		},
		{
			name:   "too many arguments raise",
			code:   "try:\n    await resolve_vent(1, 'a', 'b')\nexcept TypeError as e:\n    print(e)",
			output: "resolve_vent() takes 2 positional arguments but 3 were given\n",
		},
		{
			name:   "a value given twice raises",
			code:   "try:\n    await resolve_vent(1, id=2)\nexcept TypeError as e:\n    print(e)",
			output: "resolve_vent() got multiple values for argument 'id'\n",
		},
		{
			name:   "its docstring shows the signature and the daemon's doc",
			code:   "print(vent.__doc__)",
			output: "vent(topic, message, suggestion=None, title=None)\n\nFiles a vent.\n",
		},
		{
			name:  "vents",
			code:  "[v['id'] for v in await vents()]",
			value: "[7]",
			call:  &hostCall{"h", "vents", `{}`},
		},
		{
			name:   "host error raises",
			code:   "try:\n    await resolve_vent(7, 'fixed')\nexcept RuntimeError as error:\n    print(type(error).__name__, error)",
			output: "HostError vent #7 is already resolved\n",
			call:   &hostCall{"h", "resolve_vent", `{"id": 7, "note": "fixed"}`},
		},
		{
			name:   "host error traceback",
			code:   "await vent('bug', '  ')",
			status: albedo.CellError,
			call:   &hostCall{"h", "vent", `{"topic": "bug", "message": "  "}`},
		},
		{name: "nil result", code: "await _host('nothing')", call: &hostCall{"h", "nothing", `{}`}},
		{name: "invalid result", code: "try:\n    await _host('invalid')\nexcept HostError as e:\n    print(e)", output: "host call invalid returned invalid JSON\n"},
		{name: "panicking host", code: "try:\n    await _host('panic')\nexcept HostError as e:\n    print(e)", output: "host call panic failed inside albedo\n"},
		{
			name:  "concurrent calls",
			code:  "import asyncio\nawait asyncio.gather(_host('slow'), _host('slow'), _host('slow'))",
			value: "['slept', 'slept', 'slept']",
		},
		{
			name:   "arguments must be JSON",
			code:   "await _host('vent', topic=object())",
			status: albedo.CellError,
		},
		{
			name:  "from a loop of the cell's own",
			code:  "import asyncio, threading\nbox = []\nt = threading.Thread(target=lambda: box.append(asyncio.run(vents())))\nt.start(); t.join()\nbox[0][0]['id']",
			value: "7",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host.mu.Lock()
			host.calls = nil
			host.mu.Unlock()
			res := host.run(t, k, workspace, tt.code)
			status := tt.status
			if status == "" {
				status = albedo.CellOK
			}
			if res.Status != status || res.Output != tt.output || res.Value != tt.value {
				t.Fatalf("result = %q %q %q, want %q %q %q; error: %s",
					res.Status, res.Output, res.Value, status, tt.output, tt.value, res.Error)
			}
			if tt.call != nil {
				host.mu.Lock()
				defer host.mu.Unlock()
				if len(host.calls) != 1 || !sameCall(host.calls[0], *tt.call) {
					t.Errorf("calls = %+v, want %+v", host.calls, *tt.call)
				}
			}
		})
	}
}

// sameCall compares calls, their arguments as JSON.
func sameCall(got, want hostCall) bool {
	var a, b any
	if json.Unmarshal([]byte(got.args), &a) != nil || json.Unmarshal([]byte(want.args), &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return got.session == want.session && got.name == want.name && string(ja) == string(jb)
}

func TestHostErrorTraceback(t *testing.T) {
	k := newKernels(t, Options{})
	res := (&fakeHost{}).run(t, k, t.TempDir(), "await vent('bug', ' ')")
	for _, want := range []string{"await vent('bug', ' ')", "HostError: say what went wrong"} {
		if !strings.Contains(res.Error, want) {
			t.Errorf("error lacks %q:\n%s", want, res.Error)
		}
	}
	if strings.Contains(res.Error, "albedo-kernel") {
		t.Errorf("error shows kernel frames:\n%s", res.Error)
	}
}

func TestNoHost(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	res := runCell(t, k, context.Background(), albedo.Cell{SessionID: "h", Workspace: workspace, Code: "await vents()", HostCalls: ventCalls})
	if res.Status != albedo.CellError || !strings.Contains(res.Error, "host call vents is not available") {
		t.Errorf("declared without a host: %q %q", res.Status, res.Error)
	}
	res = runCell(t, k, context.Background(), albedo.Cell{SessionID: "h", Workspace: workspace, Code: "'vents' in globals(), '_host' in globals()"})
	if res.Value != "(False, True)" {
		t.Errorf("declared as none: %q %q, want no vents global left, the _host helper kept", res.Value, res.Error)
	}
}

// TestTheDaemonDeclaresTheHostCalls: the kernel keeps no list of host
// calls of its own; each cell's declarations become its globals.
func TestTheDaemonDeclaresTheHostCalls(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	host := &fakeHost{}
	clock := albedo.HostCallDecl{Name: "clock", Doc: "The time.", Params: []albedo.HostParam{{Name: "zone", Optional: true}}}
	if res := host.run(t, k, workspace, "'clock' in globals(), 'vent' in globals()"); res.Value != "(False, True)" {
		t.Fatalf("with albedo's calls: %q %q", res.Value, res.Error)
	}
	// Rebinding a host call's name sticks while the declarations stay the
	// same: they are sent again only when they change.
	if res := host.run(t, k, workspace, "vent = 5"); res.Status != albedo.CellOK {
		t.Fatalf("rebinding: %q", res.Error)
	}
	if res := host.run(t, k, workspace, "vent"); res.Value != "5" {
		t.Errorf("vent after rebinding = %q, want 5 kept", res.Value)
	}
	calls := []albedo.HostCallDecl{ventCalls[1], clock, {Name: "run"}}
	res := host.run(t, k, workspace, "(await clock(zone='UTC'), 'resolve_vent' in globals(), vents.__name__, run.__name__, vent)", calls...)
	if res.Value != "(None, False, 'vents', 'run', 5)" {
		t.Errorf("after a new declaration = %q %q; want clock offered, resolve_vent no longer, the run helper and the rebound vent kept", res.Value, res.Error)
	}
	host.mu.Lock()
	defer host.mu.Unlock()
	if len(host.calls) != 1 || !sameCall(host.calls[0], hostCall{"h", "clock", `{"zone": "UTC"}`}) {
		t.Errorf("calls = %+v, want clock(zone)", host.calls)
	}
}

func TestInterruptDuringAHostCall(t *testing.T) {
	k := newKernels(t, Options{})
	host := &fakeHost{}
	workspace := t.TempDir()
	host.run(t, k, workspace, "import asyncio\nawait asyncio.sleep(0)")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res := runCell(t, k, ctx, host.cell(workspace, "await _host('slow')"))
	if res.Status != albedo.CellInterrupted {
		t.Fatalf("status = %q: %s", res.Status, res.Error)
	}
	if res := host.run(t, k, workspace, "await _host('slow')"); res.Value != "'slept'" || len(res.Notes) != 0 {
		t.Errorf("next call = %q %q, notes %q", res.Value, res.Error, res.Notes)
	}
}
