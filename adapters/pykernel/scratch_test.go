package pykernel

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

func TestScratch(t *testing.T) {
	k := newKernels(t, Options{Host: (&fakeHost{}).call})
	ws := t.TempDir()
	run(t, k, "s", ws, "import asyncio\nawait asyncio.sleep(0)")
	for _, c := range []albedo.Cell{
		{Code: "while True: pass", Timeout: 300 * time.Millisecond},
		{Code: "async def f():\n    await asyncio.sleep(10)\nawait f()", Timeout: 300 * time.Millisecond},
		{Code: "await vent('bug', ' ')"},
		{Code: "import os; os._exit(3)"},
		{Code: "1"},
		{Code: "def f(): f()\nf()"},
		{Code: "try:\n    1/0\nexcept Exception as e:\n    raise ValueError('x') from e"},
	} {
		c.SessionID, c.Workspace = "s", ws
		res := runCell(t, k, context.Background(), c)
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Logf("%s\n%s", c.Code, b)
	}
}
