"""Cold start to the first model request: albedo against a bare agent loop.

    python3 bench/peers/cold_start.py [--repeat N] [--daemon cold|warm] [--baseline BINARY] [--also VAR=VALUE ...]

Each round launches, in turn, `albedo run "hi"` and bench/peers/bare_loop.py
(a minimal agent loop in Python: read the config, send one streamed Chat
Completions request), both against one fake model server that answers
every request with a short text, and times each from its launch (just
before the process is spawned) to the arrival of its first model request
at the server. With `--daemon cold` (the default) no daemon runs for the
home when `albedo run` starts: it starts one, as a user's first command
of the day does, and the daemon is stopped after the round; with
`--daemon warm` the daemon of the first round serves them all, each in a
new session. Each runner keeps one home for all its rounds (as a user
does: the store and python.json exist after the first), and each round
uses a fresh workspace, as a first command in a new folder.

`--baseline BINARY` adds a runner of another albedo binary (one built
from an earlier commit, with its albedo-sandbox beside it), for before
and after figures from one sitting.

Each `--also VAR=VALUE` (repeatable; several joined by commas in one)
adds a third runner to every round: `albedo run "hi"` with those variables
set, to see what a part costs (`--also ALBEDO_KERNEL_WARMUP=0`, say).

Prints the median and the spread of `--repeat` (default 20) rounds of
each, after one round of each that is not counted, and albedo's median
as a multiple of the loop's. Alternating the two makes the machine's
changing load fall on both alike. Figures are for reading, never for
asserting. Build the binary with `bash scripts/build.sh` first, or set
ALBEDO_TEST_BINARY. ALBEDO_KERNEL_WARMUP and the like pass through to
the daemon.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.dont_write_bytecode = True

from canned import CannedProvider  # noqa: E402  (puts acceptance/ on the path)
from harness import alive, binary, wait_gone  # noqa: E402

LOOP = Path(__file__).resolve().parent / "bare_loop.py"


class ArrivalProvider(CannedProvider):
    """A model server that answers every request with a text and notes
    when each arrives; `first_after(t)` waits for the first arrival
    after t."""

    def __init__(self):
        self.arrivals = []
        self._cond = threading.Condition()

        def answer(number, body):
            with self._cond:
                self.arrivals.append(time.monotonic())
                self._cond.notify_all()
            return None, 1000

        super().__init__(answer)

    def first_after(self, start, timeout=30):
        with self._cond:
            ok = self._cond.wait_for(lambda: any(a >= start for a in self.arrivals), timeout)
            if not ok:
                raise AssertionError("no model request arrived")
            return min(a for a in self.arrivals if a >= start)


def write_home(home, url):
    """An albedo home naming the fake model server."""
    home.mkdir(mode=0o700, exist_ok=True)
    (home / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}}))
    (home / "config.json").write_text(json.dumps({"active": "fake", "providers": {"fake": {
        "baseUrl": url, "apiKey": "fake-key", "model": "fake-model", "protocol": "chat_completions"}}}))


def stop_daemon(home):
    """Stops the home's daemon, if one runs, and waits until it is gone."""
    try:
        pid = json.loads((home / "daemon.json").read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return
    if alive(pid):
        os.kill(pid, signal.SIGTERM)
        if not wait_gone(pid, 10):
            os.kill(pid, signal.SIGKILL)
            wait_gone(pid, 5)


def timed(provider, argv, env, cwd):
    """Seconds from spawning argv to the first model request; the process
    is then left to finish."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    arrived = provider.first_after(start)
    _, err = proc.communicate(timeout=60)
    if proc.returncode != 0:
        raise AssertionError(f"{argv[0]} failed: {err.decode(errors='replace')}")
    return arrived - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--daemon", choices=("cold", "warm"), default="cold")
    parser.add_argument("--also", action="append", default=[], metavar="VAR=VALUE[,VAR=VALUE]")
    parser.add_argument("--baseline", metavar="BINARY")
    args = parser.parse_args()
    albedo = str(binary())
    variants = {"albedo": (albedo, {})}
    if args.baseline:
        variants["baseline"] = (args.baseline, {})
    for spec in args.also:
        variants["albedo " + spec] = (albedo, dict(kv.split("=", 1) for kv in spec.split(",")))
    provider = ArrivalProvider()
    root = Path(tempfile.mkdtemp(prefix="albedo-peers-"))
    base = dict(os.environ)
    for name in ("ALBEDO_API_KEY", "ALBEDO_TOKEN", "ALBEDO_PORT", "ALBEDO_STORE_URL"):
        base.pop(name, None)
    user_home = root / "user-home"
    user_home.mkdir()
    base["HOME"] = str(user_home)
    shared_home = root / "home"
    write_home(shared_home, provider.url)
    times = {name: [] for name in [*variants, "loop"]}
    homes = {name: root / f"home-{i}" for i, name in enumerate(variants)}
    try:
        for n in range(args.repeat + 1):
            for name, (program, extra) in variants.items():
                workspace = root / f"ws-{n}-{len(times[name])}-{name.replace(' ', '_').replace('/', '_')}"
                workspace.mkdir()
                home = homes[name]
                write_home(home, provider.url)
                took = timed(provider, [program, "run", "hi"], dict(base, ALBEDO_HOME=str(home), **extra), workspace)
                if args.daemon == "cold":
                    stop_daemon(home)
                if n > 0:
                    times[name].append(took)
            loop_ws = root / f"ws-{n}-loop"
            loop_ws.mkdir()
            took = timed(provider, [sys.executable, str(LOOP), str(shared_home / "config.json"), "hi"],
                         dict(base, ALBEDO_HOME=str(shared_home)), loop_ws)
            if n > 0:
                times["loop"].append(took)
    finally:
        for home in homes.values():
            stop_daemon(home)
        provider.close()
        shutil.rmtree(root, ignore_errors=True)
    medians = {}
    for name, values in times.items():
        values.sort()
        medians[name] = statistics.median(values)
        print(f"{name:30} median {medians[name] * 1000:7.1f} ms   "
              f"min {values[0] * 1000:7.1f}   max {values[-1] * 1000:7.1f}   (n={len(values)})")
    for name in variants:
        print(f"{name} / loop: {medians[name] / medians['loop']:.2f}x  (daemon {args.daemon})")


if __name__ == "__main__":
    main()
