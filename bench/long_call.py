"""How heavy one long tool call makes the daemon: peak RSS of its turn.

    python3 bench/long_call.py [--mib M] [--settle S]

A fake Chat Completions server answers the first request of a turn with one
python call whose arguments are about `--mib` MiB (default 7, under the 8 MiB cap on one
reply item): a cell that
assigns a string of that size and prints its length, streamed in 16 KiB
deltas, as a model writing a long cell or a file's content does. The
request after the cell's output gets a short answer. The script reports the
daemon's peak RSS (VmHWM, reset through /proc/PID/clear_refs just before
the turn) over the whole turn (the call streamed, stored, run, its output
stored, the next model request sent with the call in it, the answer), the
size of the largest request body, the RSS after the turn and `--settle`
seconds (default 30) later, and then checks that the history holds the
call. Figures are for reading, never for asserting. Build the binary with
`bash scripts/build.sh` first (or point ALBEDO_TEST_BINARY at one).
"""

from __future__ import annotations

import argparse
from pathlib import Path
import sys

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "acceptance"))
sys.dont_write_bytecode = True

from footprint import MIB, LongCallProvider, measured_turn, peak, print_settled_rss, rss  # noqa: E402
from harness import Albedo  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=7, help="size of the call's arguments in MiB (under the 8 MiB cap on one reply item)")
    parser.add_argument("--settle", type=float, default=30, help="seconds to wait before the last RSS")
    args = parser.parse_args()
    provider = LongCallProvider(args.mib * MIB)
    try:
        with Albedo(provider) as app:
            session = app.session()
            print(f"RSS before the turn: {rss(app):.1f} MB", flush=True)
            took = measured_turn(app, session, "write the long cell", timeout=600)
            top, after = peak(app), rss(app)
            calls = [i for i in app.history(session)["items"] if i["kind"] == "tool_call"]
            if len(calls) != 1:
                raise SystemExit(f"the turn made {len(calls)} calls, want 1")
            size = len(calls[0]["arguments"])
            print(
                f"{args.mib} MiB tool call ({size / MIB:.1f} MiB of arguments): turn {took:.1f} s,"
                f" largest request body {max(provider.bodies) / MIB:.1f} MiB,"
                f" peak {top:.1f} MB, after {after:.1f} MB",
                flush=True,
            )
            print_settled_rss(app, args.settle, "the turn")
    finally:
        provider.close()


if __name__ == "__main__":
    main()
