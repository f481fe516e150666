package pykernel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

func TestInterrupts(t *testing.T) {
	tests := []struct {
		name    string
		code    string
		timeout time.Duration // the cell's
		cancel  time.Duration // cancel the context after this, if not 0
		status  albedo.CellStatus
		killed  bool // the kernel had to be killed
		errors  []string
	}{
		{
			name: "busy loop times out", code: "while True:\n    pass",
			timeout: 500 * time.Millisecond, status: albedo.CellTimeout,
			errors: []string{"longer than its 500ms timeout", "KeyboardInterrupt", "<cell "},
		},
		{
			name: "sleep times out", code: "import time\ntime.sleep(30)",
			timeout: 300 * time.Millisecond, status: albedo.CellTimeout,
			errors: []string{"KeyboardInterrupt", "time.sleep(30)"},
		},
		{
			name: "cancel interrupts sleep", code: "import time\ntime.sleep(30)",
			cancel: 200 * time.Millisecond, status: albedo.CellInterrupted,
			errors: []string{"The cell was interrupted.", "KeyboardInterrupt"},
		},
		{
			name: "cancel interrupts await", code: "import asyncio\nstate = 'before'\nawait asyncio.sleep(1)\nstate = 'after'",
			cancel: 200 * time.Millisecond, status: albedo.CellInterrupted,
			errors: []string{"KeyboardInterrupt", "await asyncio.sleep(1)"},
		},
		{
			name: "cancel interrupts a child process", code: "import subprocess\nsubprocess.run(['sleep', '30'])",
			cancel: 200 * time.Millisecond, status: albedo.CellInterrupted,
			errors: []string{"KeyboardInterrupt"},
		},
		{
			name: "tiny timeout", code: "while True:\n    pass",
			timeout: time.Microsecond, status: albedo.CellTimeout,
			errors: []string{"KeyboardInterrupt"},
		},
		{
			name:    "ignored interrupt kills the kernel",
			code:    "while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass",
			timeout: 300 * time.Millisecond, status: albedo.CellTimeout, killed: true,
			errors: []string{"did not stop and was killed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKernels(t, Options{})
			workspace := t.TempDir()
			// Warm up: the asyncio import can take longer than an interrupt's delay.
			run(t, k, "s", workspace, "import asyncio\nawait asyncio.sleep(0)\nkept = 'yes'")
			ctx := context.Background()
			if tt.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(tt.cancel, cancel)
				defer cancel()
			}
			began := time.Now()
			res := runCell(t, k, ctx, albedo.Cell{SessionID: "s", Workspace: workspace, Code: tt.code, Timeout: tt.timeout})
			took := time.Since(began)
			if res.Status != tt.status {
				t.Fatalf("status = %q, want %q; error: %s", res.Status, tt.status, res.Error)
			}
			for _, want := range tt.errors {
				if !strings.Contains(res.Error, want) {
					t.Errorf("error lacks %q:\n%s", want, res.Error)
				}
			}
			limit := tt.timeout + tt.cancel + 1500*time.Millisecond
			if tt.killed {
				limit += interruptGrace
			}
			if took > limit {
				t.Errorf("the cell took %s, want at most %s", took, limit)
			}
			next := run(t, k, "s", workspace, "kept")
			if tt.killed {
				if len(res.Notes) != 1 || res.Notes[0] != killedNote {
					t.Errorf("notes = %q, want the kill note", res.Notes)
				}
				if next.Status != albedo.CellError || !strings.Contains(next.Error, "NameError") {
					t.Errorf("next cell = %q %q, want a NameError", next.Status, next.Error)
				}
				if !next.Fresh || len(next.Notes) != 0 {
					t.Errorf("next fresh %v, notes %q; want a fresh kernel reported, without notes", next.Fresh, next.Notes)
				}
				return
			}
			if len(res.Notes) != 0 {
				t.Errorf("notes = %q, want none", res.Notes)
			}
			if next.Value != "'yes'" || len(next.Notes) != 0 {
				t.Errorf("next cell = %q %q, notes %q; want the kernel kept", next.Value, next.Error, next.Notes)
			}
		})
	}
}

func TestInterruptedTaskDoesNotResume(t *testing.T) {
	k := newKernels(t, Options{})
	workspace := t.TempDir()
	run(t, k, "s", workspace, "import asyncio\nawait asyncio.sleep(0)")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	code := "import asyncio\nstate = 'before'\nawait asyncio.sleep(0.5)\nstate = 'after'"
	res := runCell(t, k, ctx, albedo.Cell{SessionID: "s", Workspace: workspace, Code: code})
	if res.Status != albedo.CellInterrupted {
		t.Fatalf("status = %q", res.Status)
	}
	if res := run(t, k, "s", workspace, "await asyncio.sleep(1)\nstate"); res.Value != "'before'" {
		t.Fatalf("state = %s %s, want 'before'", res.Value, res.Error)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	k := newKernels(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runCell(t, k, ctx, albedo.Cell{SessionID: "s", Workspace: t.TempDir(), Code: "1"})
	if res.Status != albedo.CellInterrupted {
		t.Fatalf("status = %q", res.Status)
	}
	if pid := pidOf(k, "s"); pid != 0 {
		t.Errorf("a kernel started: pid %d", pid)
	}
}
