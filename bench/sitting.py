"""Two builds of albedo measured in one sitting, alternating, for a
before/after table.

    python3 bench/sitting.py BEFORE_DIR AFTER_DIR [--rounds N] [--long-session]

BEFORE_DIR and AFTER_DIR are checkouts of albedo (git worktrees of two
commits, say). Each is built first if it has no `bin/albedo` or no
`bin/bench.test` (`bash scripts/build.sh`, `go test -c ./bench`). Then,
`--rounds` times (default 3), each build in turn runs:

- per tool turn: `BenchmarkToolTurn` of its own `bench/` (the engine over
  SQLite with an instant provider and kernel, ms per tool round);
- a cold and a warm CLI call: `bench.py cli-cold cli-warm` of this
  checkout, against that build's binary;
- CPU per tool round at rounds 50 and 500 with a 128k-token context
  window: `turn_cpu.py --context-window 128000` of this checkout.

With `--long-session`, each build then runs its own `bench/long_session.py`
once (it writes its store directly, so each build's script must match its
schema); its lines are printed as they come.

The table shows the median of the rounds for each figure. Alternating the
builds puts the machine's changing load on both alike; CPU times move
least with load, wall times most. Figures are for reading, never for
asserting.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import re
import statistics
import subprocess
import sys

HERE = Path(__file__).resolve().parent

FIGURES = [
    # name, regular expression over a run's output, unit
    ("per tool turn", r"([\d.]+) ms/tool-turn", "ms"),
    ("cold CLI call", r"no daemon running: until listed: median ([\d.]+) ms", "ms"),
    ("warm CLI call", r"daemon running, \d+ sessions: until exited: median ([\d.]+) ms", "ms"),
    ("CPU per round at round 50", r"turn 50 mean [\d.]+ ms, median ([\d.]+) ms", "ms"),
    ("CPU per round at round 500", r"turn 500 mean [\d.]+ ms, median ([\d.]+) ms", "ms"),
]


def build(tree: Path) -> None:
    """Builds the binary and the benchmark test binary of tree if missing."""
    if not (tree / "bin" / "albedo").exists():
        subprocess.run(["bash", "scripts/build.sh"], cwd=tree, check=True)
    if not (tree / "bin" / "bench.test").exists():
        subprocess.run(["go", "test", "-c", "-o", "bin/bench.test", "./bench"], cwd=tree, check=True)


def run(tree: Path) -> str:
    """One round of the measures for the build in tree; returns their output."""
    env = dict(os.environ, ALBEDO_TEST_BINARY=str(tree / "bin" / "albedo"))
    commands = [
        ([str(tree / "bin" / "bench.test"), "-test.run", "^$", "-test.bench", "^BenchmarkToolTurn$",
          "-test.benchtime", "20x"], tree / "bench"),
        ([sys.executable, str(HERE / "bench.py"), "cli-cold", "cli-warm"], HERE),
        ([sys.executable, str(HERE / "turn_cpu.py"), "--context-window", "128000"], HERE),
    ]
    out = []
    for command, cwd in commands:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} in {tree} failed:\n{done.stdout}\n{done.stderr}")
        out.append(done.stdout)
    return "\n".join(out)


def figures(output: str) -> dict[str, float]:
    found = {}
    for name, pattern, _unit in FIGURES:
        matches = re.findall(pattern, output)
        if matches:  # the last: cli-warm's table of 20 sessions
            found[name] = float(matches[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--long-session", action="store_true", help="also run each build's long_session.py once")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for tree in trees.values():
        build(tree)
    seen: dict[str, dict[str, list[float]]] = {label: {} for label in trees}
    for number in range(1, args.rounds + 1):
        for label, tree in trees.items():
            found = figures(run(tree))
            print(f"round {number} {label}: " + ", ".join(f"{k} {v:g}" for k, v in found.items()), flush=True)
            for name, value in found.items():
                seen[label].setdefault(name, []).append(value)
    print(f"\n| measure (median of {args.rounds}) | before | after | after/before |")
    print("|---|---|---|---|")
    for name, _pattern, unit in FIGURES:
        before, after = seen["before"].get(name), seen["after"].get(name)
        if not before or not after:
            continue
        a, b = statistics.median(before), statistics.median(after)
        print(f"| {name} | {a:.2f} {unit} | {b:.2f} {unit} | {b / a:.2f} |")
    if args.long_session:
        for label, tree in trees.items():
            print(f"\n== long_session.py, {label}", flush=True)
            env = dict(os.environ, ALBEDO_TEST_BINARY=str(tree / "bin" / "albedo"))
            subprocess.run([sys.executable, "bench/long_session.py"], cwd=tree, env=env, check=True)


if __name__ == "__main__":
    main()
