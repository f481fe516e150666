"""albedo's end-to-end benchmarks: run against the built binary and print medians.

    python3 bench/bench.py [NAME ...]

Names: cli-cold, cli-warm, rss, list-1000, recovery (the default: all of
these), and cli-warm-long (about four minutes: cli-warm over 300 runs
spread out in time, against two homes in turn, one empty and one with 20
sessions, for a median that the machine's minute-to-minute drift moves
less). Each prints one line `name: median X ms (n=N, min .., max ..)` or
a size. The Go
benchmarks (`go test -bench . ./...`) cover what is better measured inside
the process: per-turn overhead, request building, snapshots, kernel cells.
Figures are for reading, never for asserting. Build the binary with
`bash scripts/build.sh` first: the figures are for that build.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "acceptance"))
sys.dont_write_bytecode = True

from footprint import rss as rss_mb  # noqa: E402
from harness import Albedo, Provider, binary, python, text  # noqa: E402


def report(name, samples, unit="ms"):
    samples = sorted(samples)
    print(
        f"{name}: median {statistics.median(samples):.1f} {unit} "
        f"(n={len(samples)}, min {samples[0]:.1f}, max {samples[-1]:.1f})",
        flush=True,
    )


def timed_listing(app, expected, *args):
    """Runs `albedo ARGS` and returns two times in ms: until its stdout has
    delivered `expected` (the listing is printed), and until it has exited."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(binary()), *args], cwd=app.workspace, env=app.env(),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    out = b""
    printed = None
    while True:
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            break
        out += chunk
        if printed is None and len(out) >= len(expected):
            printed = time.perf_counter()
    process.wait()
    exited = time.perf_counter()
    process.stdout.close()
    if process.returncode != 0 or out != expected:
        raise SystemExit(f"albedo {' '.join(args)} exited {process.returncode} printing {out!r}")
    return (printed - started) * 1000, (exited - started) * 1000


def stop_daemon(app):
    pid = app.connection["pid"]
    try:
        app.api("/shutdown", {}).close()
    except Exception:
        pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.005)


def cli_cold(app, runs=10):
    """Times `albedo sessions` when it has to start the daemon first."""
    expected = app.cli("sessions").encode()
    samples = []
    for _ in range(runs):
        stop_daemon(app)
        samples.append(timed_listing(app, expected, "sessions")[0])
        app.connection = json.loads((app.home / "daemon.json").read_text())
    report("albedo sessions, no daemon running: until listed", samples)


def session_count(app):
    """How many sessions the app's daemon lists."""
    with app.api("/sessions") as response:
        return len(json.load(response))


def fill(app, count):
    """Creates sessions until the app's daemon lists at least `count`."""
    for _ in range(max(0, count - session_count(app))):
        app.api("/sessions", {"workspace": str(app.workspace)}).close()


def cli_warm(app, runs=30, listed=20):
    """Times `albedo sessions` listing the sessions there are, then (when
    there were fewer) a table of `listed` sessions."""
    have = session_count(app)
    for count in [have] if have >= listed else [have, listed]:
        fill(app, count)
        expected = app.cli("sessions").encode()
        samples = [timed_listing(app, expected, "sessions") for _ in range(runs)]
        name = f"albedo sessions, daemon running, {count} sessions"
        report(f"{name}: until listed", [s[0] for s in samples])
        report(f"{name}: until exited", [s[1] for s in samples])


def cli_warm_long(provider, rounds=10, runs=30, pause=15):
    with Albedo(provider) as other:
        homes = {0: other}
        assert session_count(other) == 0, "a fresh home lists sessions"
        with Albedo(provider) as full:
            fill(full, 20)
            homes[20] = full
            expected = {n: app.cli("sessions").encode() for n, app in homes.items()}
            samples = {n: [] for n in homes}
            for _ in range(rounds):
                for _ in range(runs):
                    for n, app in homes.items():
                        samples[n].append(timed_listing(app, expected[n], "sessions")[0])
                time.sleep(pause)
            for n, values in samples.items():
                report(f"albedo sessions, daemon running, {n} sessions, spread out: until listed", values)


def rss(app):
    app.cli("sessions")
    time.sleep(1)
    print(f"idle daemon RSS: {rss_mb(app):.1f} MB", flush=True)


def list_1000(app, runs=30):
    fill(app, 1000)
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        with app.api("/sessions") as response:
            body = response.read()
        samples.append((time.perf_counter() - started) * 1000)
    assert len(json.loads(body)) >= 1000
    report("GET /sessions over 1,000 sessions", samples)


def recovery(provider_log, app, runs=5):
    samples = []
    for _ in range(runs):
        session = app.session()
        app.prompt(session, "hang for recovery").close()
        deadline = time.monotonic() + 10
        while not (app.workspace / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        start = len(provider_log.requests)
        killed = time.perf_counter()
        os.kill(app.connection["pid"], signal.SIGKILL)
        app.cli("sessions")
        while len(provider_log.requests) <= start and time.perf_counter() - killed < 15:
            time.sleep(0.001)
        samples.append((time.perf_counter() - killed) * 1000)
        app.connection = json.loads((app.home / "daemon.json").read_text())
        app.idle(session)
        (app.workspace / "started").unlink()
    report("kill -9 to the resumed turn's first request", samples)


def script(request):
    inputs = request.get("messages", request.get("input", []))
    done = any(i.get("role") == "tool" or i.get("type") == "function_call_output" for i in inputs)
    if done:
        return text("done")
    return python("from pathlib import Path\nPath('started').write_text('1')\nimport time\ntime.sleep(30)")


def main(names):
    names = names or ["cli-cold", "cli-warm", "rss", "list-1000", "recovery"]
    provider = Provider(script)
    try:
        with Albedo(provider) as app:
            for name in names:
                if name == "cli-warm-long":
                    cli_warm_long(provider)
                elif name == "cli-cold":
                    cli_cold(app)
                elif name == "cli-warm":
                    cli_warm(app)
                elif name == "rss":
                    rss(app)
                elif name == "list-1000":
                    list_1000(app)
                elif name == "recovery":
                    recovery(provider, app)
                else:
                    raise SystemExit(f"unknown benchmark {name!r}")
    finally:
        provider.close()


if __name__ == "__main__":
    main(sys.argv[1:])
