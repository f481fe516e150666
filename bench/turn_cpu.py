"""How the daemon's CPU per tool round grows with the length of a turn.

    python3 bench/turn_cpu.py [--rounds N] [--window W] [--protocol P] [--repeat R]
                              [--context-window T]
    python3 bench/turn_cpu.py --interleaved [--block B] [--protocol P] [--repeat R]

One turn of `--rounds` (default 525) instant tool rounds: a minimal fake
provider (it reads each request body and answers at once with a canned
stream, without decoding or keeping the request, so that its own cost
does not grow with the transcript) calls python with `1` for every request
but the turn's last, which gets a text. The daemon's CPU time (user and
system, summed over its threads from /proc/PID/task/*/schedstat, in ns) is
sampled as each request arrives, so a round is the daemon's work from one
request to the next: storing the reply, running the cell, storing its
output, and building and sending the next request. Reports the mean CPU
per round over `--window` (default 100) rounds around round 50 and around
round 500, the median of those rounds, and their ratios. The Python kernel's own CPU is not the
daemon's and is not counted. CPU time, unlike wall time, barely moves
with the load of a busy machine; still, compare binaries in one sitting,
alternating them. `--context-window T` gives the provider a context window
of T tokens (`contextWindow` in config.json), so that the compaction
decision runs before every request, as it does for a user who configured
one. With `--interleaved`, a session is first run to round
450, then blocks of `--block` (default 20) rounds of a new session (its
rounds 0-100) alternate with blocks of the long one (its rounds 450-550),
so that the machine's changing load falls on both alike; the figures are
the medians of the blocks. Figures are for reading, never for asserting. Build the
binary with `bash scripts/build.sh` first, or set ALBEDO_TEST_BINARY.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import statistics

# canned puts acceptance/ on the path, for harness.
from canned import CannedProvider
from harness import Albedo, binary

ARGUMENTS = json.dumps({"code": "1", "timeout_ms": 60000})


def instant_provider(before):
    """A model server that answers every request at once: before(n) is
    called as request n (from 1) arrives and says whether to call python."""
    return CannedProvider(lambda number, _body: (ARGUMENTS if before(number) else None, 1000 + number))


def cpu_ns(pid):
    """The CPU time of every thread of pid, in ns."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return total


def with_context_window(tokens):
    """A prepare hook for Albedo that sets the fake provider's context
    window to tokens, or None when tokens is 0 (no window configured)."""
    if not tokens:
        return None

    def prepare(app):
        path = app.home / "config.json"
        config = json.loads(path.read_text())
        for provider in config["providers"].values():
            provider["contextWindow"] = tokens
        path.write_text(json.dumps(config))

    return prepare


def one_turn(args):
    """Runs one turn and returns the daemon's CPU (ns) at each request."""
    samples = []
    holder = {}

    def before(number):
        samples.append(cpu_ns(holder["pid"]))
        return number <= args.rounds

    provider = instant_provider(before)
    try:
        with Albedo(provider, protocol=args.protocol, prepare=with_context_window(args.context_window)) as app:
            holder["pid"] = app.connection["pid"]
            session = app.session()
            app.prompt(session, "go").close()
            app.idle(session, timeout=args.rounds * 2 + 60)
    finally:
        provider.close()
    return samples


def interleaved(args):
    """Runs a long session to round 450, then alternates blocks of
    `--block` rounds of a new session (its rounds 0 to 100) and of the long
    one (its rounds 450 to 550), so that both see the same machine. Returns
    the CPU per round in ms of each block of the new session and of the
    long one, counting only the rounds inside a block: from its second
    request to its last python call."""
    state = {"left": 0, "samples": []}

    def before(number):
        state["samples"].append(cpu_ns(state["pid"]))
        if state["left"] > 0:
            state["left"] -= 1
            return True
        return False

    def turn(app, session, rounds):
        state["left"], state["samples"] = rounds, []
        app.prompt(session, "go on").close()
        app.idle(session, timeout=rounds * 2 + 60)
        samples = state["samples"]
        return (samples[rounds] - samples[1]) / max(rounds - 1, 1) / 1e6

    provider = instant_provider(before)
    short, long = [], []
    try:
        with Albedo(provider, protocol=args.protocol, prepare=with_context_window(args.context_window)) as app:
            state["pid"] = app.connection["pid"]
            first, second = app.session(), app.session()
            turn(app, first, 450)
            turn(app, second, 1)  # both sessions are loaded and warm
            for _ in range(100 // args.block):
                short.append(turn(app, second, args.block))
                long.append(turn(app, first, args.block))
    finally:
        provider.close()
    return short, long


def per_round(samples, around, window):
    """The CPU per round in ms over window rounds centred on around: the
    mean, and the median of the single rounds, which a round the machine's
    other work or a garbage collection happened to hit moves less."""
    lo = max(1, around - window // 2)
    hi = min(len(samples) - 1, lo + window)
    rounds = [(samples[i + 1] - samples[i]) / 1e6 for i in range(lo, hi)]
    return (samples[hi] - samples[lo]) / (hi - lo) / 1e6, statistics.median(rounds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=525, help="tool rounds in the turn")
    parser.add_argument("--window", type=int, default=100, help="rounds averaged at each point")
    parser.add_argument("--protocol", default="chat_completions", choices=["chat_completions", "responses"])
    parser.add_argument("--repeat", type=int, default=1, help="turns to run, each in a fresh home")
    parser.add_argument("--interleaved", action="store_true",
                        help="measure rounds 0-100 of one session and 450-550 of another in alternating blocks")
    parser.add_argument("--block", type=int, default=20, help="rounds per block with --interleaved")
    parser.add_argument("--context-window", type=int, default=0,
                        help="the provider's contextWindow in tokens (0: none configured)")
    args = parser.parse_args()
    print(
        f"binary: {binary()}  protocol: {args.protocol}  rounds: {args.rounds}"
        f"  context window: {args.context_window or 'none'}",
        flush=True,
    )
    if args.interleaved:
        for _ in range(args.repeat):
            short, long = interleaved(args)
            a, b = statistics.median(short), statistics.median(long)
            print(
                f"CPU per tool round, interleaved blocks of {args.block}: rounds 0-100 {a:.3f} ms"
                f" ({', '.join(f'{x:.2f}' for x in short)}), rounds 450-550 {b:.3f} ms"
                f" ({', '.join(f'{x:.2f}' for x in long)}); ratio of medians {b / a:.2f}",
                flush=True,
            )
        return
    early, late = [], []
    for _ in range(args.repeat):
        samples = one_turn(args)
        (a, am), (b, bm) = per_round(samples, 50, args.window), per_round(samples, 500, args.window)
        early.append(am)
        late.append(bm)
        print(
            f"CPU per tool round: turn 50 mean {a:.3f} ms, median {am:.3f} ms;"
            f" turn 500 mean {b:.3f} ms, median {bm:.3f} ms; ratio of means {b / a:.2f}, of medians {bm / am:.2f}",
            flush=True,
        )
    if args.repeat > 1:
        a, b = statistics.median(early), statistics.median(late)
        print(f"median of {args.repeat} medians: turn 50 {a:.3f} ms, turn 500 {b:.3f} ms, ratio {b / a:.2f}", flush=True)


if __name__ == "__main__":
    main()
