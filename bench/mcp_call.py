"""A stdio MCP tool's call, round trip through the daemon, beside a python
cell's.

    python3 bench/mcp_call.py [--rounds N] [--repeat R]

One daemon runs with acceptance/mcpfake.py as its MCP server ``fake``.
Each repeat sends two turns, alternating, each in a fresh session: one
whose model calls ``mcp_fake_echo`` --rounds times (default 40), one
whose model runs ``pass`` in python as many times, then answers. A round
is a model request (to a local fake provider that answers at once), the
call, and its output recorded; the turn's wall time over its rounds is
the figure. The first repeat, which starts the server and the kernel, is
not counted. Prints the median of --repeat (default 5) for each, and
their difference: what a stdio MCP call costs against a warm cell.
Figures are for reading, never for asserting. Build the binary with
`bash scripts/build.sh` first, or set ALBEDO_TEST_BINARY.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import statistics
import sys
import time

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "acceptance"))
sys.dont_write_bytecode = True

from harness import Albedo, Provider, python, text, tool  # noqa: E402
from scripts import latest_user, outputs_since_user  # noqa: E402

FAKE = HERE.parent / "acceptance" / "mcpfake.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    def script(request):
        if len(outputs_since_user(request)) >= args.rounds:
            return text("done")
        if latest_user(request) == "mcp":
            return tool("mcp_fake_echo", {"text": "hi"})
        return python("pass")

    def prepare(app):
        servers = {"fake": {"command": sys.executable, "args": [str(FAKE), "--marker=albedo-bench-mcp"]}}
        (app.home / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}, "mcp": {"servers": servers}}))

    seen = {"mcp": [], "python": []}
    with Provider(script) as provider, Albedo(provider, prepare=prepare) as app:
        for number in range(args.repeat + 1):
            for kind in seen:
                session = app.session()
                began = time.monotonic()
                app.prompt(session, kind).close()
                app.idle(session, timeout=600)
                per_round = (time.monotonic() - began) * 1000 / args.rounds
                if number > 0:
                    seen[kind].append(per_round)
                print(f"repeat {number} {kind}: {per_round:.2f} ms/round" + (" (not counted)" if number == 0 else ""), flush=True)
    mcp, cell = statistics.median(seen["mcp"]), statistics.median(seen["python"])
    print(f"\nmedian of {args.repeat}: {mcp:.2f} ms per round with an MCP call, {cell:.2f} ms per round with a python cell, "
          f"difference {mcp - cell:+.2f} ms")


if __name__ == "__main__":
    main()
