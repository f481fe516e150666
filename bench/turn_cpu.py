"""How the daemon's CPU per tool round grows with the length of a turn.

    python3 bench/turn_cpu.py [--rounds N] [--window W] [--protocol P] [--repeat R]

One turn of `--rounds` (default 525) instant tool rounds: the fake provider
answers every request at once with a python call of `1`, and the turn's
last request with a text. The daemon's CPU time (user and system, summed
over its threads from /proc/PID/task/*/schedstat, in ns) is sampled as
each request arrives, so a round is the daemon's work from one request to
the next: storing the reply, running the cell, storing its output and
building and sending the next request. Reports the mean CPU per round over
`--window` (default 50) rounds around round 50 and around round 500, and
their ratio. The Python kernel's own CPU is not the daemon's and is not
counted. CPU time, unlike wall time, barely moves with the load of a busy
machine; still, compare binaries in one sitting, alternating them
(`--repeat`). Figures are for reading, never for asserting. Build the
binary with `bash scripts/build.sh` first, or set ALBEDO_TEST_BINARY.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import statistics
import sys

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "acceptance"))
sys.dont_write_bytecode = True

import harness  # noqa: E402
from harness import Albedo, Provider, binary, python, text  # noqa: E402


def cpu_ns(pid):
    """The CPU time of every thread of pid, in ns."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return total


def one_turn(args):
    """Runs one turn and returns the daemon's CPU (ns) at each request."""
    samples = []
    holder = {}

    def script(request):
        samples.append(cpu_ns(holder["pid"]))
        if len(samples) > args.rounds:
            return text("done")
        return python("1")

    provider = Provider(script)
    try:
        with Albedo(provider, protocol=args.protocol) as app:
            holder["pid"] = app.connection["pid"]
            session = app.session()
            app.prompt(session, "go").close()
            app.idle(session, timeout=args.rounds * 2 + 60)
    finally:
        provider.close()
    return samples


def per_round(samples, around, window):
    """Mean CPU per round in ms over window rounds centred on around."""
    lo = max(1, around - window // 2)
    hi = min(len(samples) - 1, lo + window)
    return (samples[hi] - samples[lo]) / (hi - lo) / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=525, help="tool rounds in the turn")
    parser.add_argument("--window", type=int, default=50, help="rounds averaged at each point")
    parser.add_argument("--protocol", default="chat_completions", choices=["chat_completions", "responses"])
    parser.add_argument("--repeat", type=int, default=1, help="turns to run, each in a fresh home")
    args = parser.parse_args()
    # The schema checks are the fake provider's work; they would only slow
    # the loop down.
    harness.WIRE_CHECKS._loaded = True
    print(f"binary: {binary()}  protocol: {args.protocol}  rounds: {args.rounds}", flush=True)
    early, late = [], []
    for _ in range(args.repeat):
        samples = one_turn(args)
        a = per_round(samples, 50, args.window)
        b = per_round(samples, 500, args.window)
        early.append(a)
        late.append(b)
        print(f"CPU per tool round: turn 50 {a:.3f} ms, turn 500 {b:.3f} ms, ratio {b / a:.2f}", flush=True)
    if args.repeat > 1:
        a, b = statistics.median(early), statistics.median(late)
        print(f"median of {args.repeat}: turn 50 {a:.3f} ms, turn 500 {b:.3f} ms, ratio {b / a:.2f}", flush=True)


if __name__ == "__main__":
    main()
