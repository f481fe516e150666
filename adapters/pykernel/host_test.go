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
	case "nothing":
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

func TestHostCalls(t *testing.T) {
	host := &fakeHost{}
	k := newKernels(t, Options{Host: host.call})
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
			name:  "optional arguments are null",
			code:  "(await vent('bug', 'broken'))['topic']",
			value: "'bug'",
			call:  &hostCall{"h", "vent", `{"topic": "bug", "message": "broken", "suggestion": null, "title": null}`},
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
			call:   &hostCall{"h", "vent", `{"topic": "bug", "message": "  ", "suggestion": null, "title": null}`},
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
			res := run(t, k, "h", workspace, tt.code)
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
	k := newKernels(t, Options{Host: (&fakeHost{}).call})
	res := run(t, k, "h", t.TempDir(), "await vent('bug', ' ')")
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
	res := run(t, k, "h", t.TempDir(), "await vents()")
	if res.Status != albedo.CellError || !strings.Contains(res.Error, "host call vents is not available") {
		t.Errorf("result = %q %q", res.Status, res.Error)
	}
}

func TestInterruptDuringAHostCall(t *testing.T) {
	k := newKernels(t, Options{Host: (&fakeHost{}).call})
	workspace := t.TempDir()
	run(t, k, "h", workspace, "import asyncio\nawait asyncio.sleep(0)")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res := runCell(t, k, ctx, albedo.Cell{SessionID: "h", Workspace: workspace, Code: "await _host('slow')"})
	if res.Status != albedo.CellInterrupted {
		t.Fatalf("status = %q: %s", res.Status, res.Error)
	}
	if res := run(t, k, "h", workspace, "await _host('slow')"); res.Value != "'slept'" || len(res.Notes) != 0 {
		t.Errorf("next call = %q %q, notes %q", res.Value, res.Error, res.Notes)
	}
}
