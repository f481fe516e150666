"""How heavy one long session makes the daemon: RSS and read speed.

    python3 bench/long_session.py [--items N] [--output-kib K] [--settle S]
                                  [--answer-mib M] [--only session|answer]
                                  [--protocol chat_completions|responses|both]

Builds a home of 1,000 sessions, one of which holds a transcript of about
100 MiB (by default 6,447 python calls, each with an 8 KiB output, written
straight into the store while the daemon is stopped), then restarts the
daemon and reports, in one run:

- RSS after the restart, and after `albedo sessions`;
- for a tailed snapshot (`GET /sessions/{id}?tail=200`), the stream's first
  snapshot, a stream snapshot tailed to 200 events, and the full history:
  time to first byte, total time, bytes, throughput, the peak RSS during the
  read and the RSS after it;
- the RSS `--settle` seconds (default 60) after the reads;
- the peak RSS during a turn on that session, the size of its model request
  body, and the RSS after the turn;
- in a fresh home, the peak RSS while one answer of `--answer-mib` MiB
  (default 7, under the 8 MiB cap on one reply item) streams in 16 KiB deltas with one SSE reader attached that
  never reads, the RSS `--settle` seconds later, and the peak of the next
  turn, which sends the answer back; over each protocol of
  `--protocol` (default both: a Responses answer also arrives whole again
  in four finishing events, as OpenAI sends it).

RSS is VmRSS of the daemon; peaks are VmHWM after resetting it through
/proc/PID/clear_refs. Each read also reports the CPU time the daemon spent
on it (user + system, from /proc/PID/stat), the figure to compare on a
loaded machine, where wall-clock rates swing. Figures are for reading, never for asserting. Build
the binary with `bash scripts/build.sh` first.
"""

from __future__ import annotations

import argparse
import http.client
import json
from pathlib import Path
import sqlite3
import sys
import time
import uuid

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "acceptance"))
sys.dont_write_bytecode = True

from footprint import (  # noqa: E402
    MIB, LongAnswerProvider, cpu_seconds, dead_reader, measured_turn, peak, print_settled_rss, reset_peak, rss,
)
from harness import Albedo, Provider, text  # noqa: E402


def write_transcript(app, session, items, output_kib):
    """Appends `items` python calls with their outputs to the session, and
    copies the session into 999 more, straight into the store (the daemon
    is stopped). Returns the bytes of transcript written."""
    db = sqlite3.connect(app.home / "albedo.sqlite")
    try:
        line = "x" * 99 + "\n"
        output = (line * (output_kib * 1024 // len(line) + 1))[: output_kib * 1024]
        result = json.dumps({"status": "ok", "output": output})
        trace = json.dumps({"activities": [], "changes": []})
        written = 0
        rows = []
        seq = 0
        now = int(time.time() * 1000)
        for i in range(items):
            call_id = f"call-{i}"
            arguments = json.dumps({"code": f"print('x' * {output_kib * 1024})  # {i}", "timeout_ms": 60000})
            seq += 1
            rows.append((session, seq, "tool_call", now, "", call_id, "python", arguments, "chat_completions", None, None))
            seq += 1
            rows.append((session, seq, "tool_output", now, output, call_id, "python", "", "", result, trace))
            written += len(arguments) + len(output) + len(result) + len(trace)
        seq += 1
        rows.append((session, seq, "assistant", now, "done", "", "", "", "chat_completions", None, None))
        seq += 1
        rows.append((session, seq, "turn", now, "finished", "", "", "", "", None, None))
        db.executemany(
            "INSERT INTO items (session_id, seq, kind, timestamp, text, call_id, tool_name, arguments, protocol, result, trace)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        columns = [r[1] for r in db.execute("PRAGMA table_info(sessions)") if r[1] != "id"]
        names = ", ".join(columns)
        for _ in range(999):
            db.execute(
                f"INSERT INTO sessions (id, {names}) SELECT ?, {names} FROM sessions WHERE id = ?",
                (uuid.uuid4().hex[:16], session),
            )
        db.execute("UPDATE sessions SET title = 'the long one' WHERE id = ?", (session,))
        db.commit()
        return written
    finally:
        db.close()


def timed_read(app, path, until_snapshot=False):
    """GETs path, discarding the body as it arrives. Returns (ttfb ms,
    total ms, bytes). With until_snapshot, stops after the first SSE
    message."""
    conn = http.client.HTTPConnection("127.0.0.1", app.connection["port"], timeout=300)
    started = time.perf_counter()
    conn.request("GET", path, headers={"Authorization": f"Bearer {app.connection['token']}"})
    response = conn.getresponse()
    if response.status != 200:
        raise SystemExit(f"GET {path}: {response.status} {response.read()[:300]!r}")
    first = None
    size = 0
    tail = b""
    while True:
        chunk = response.read1(1 << 16)
        if not chunk:
            break
        if first is None:
            first = time.perf_counter()
        size += len(chunk)
        if until_snapshot:
            tail = (tail + chunk)[-2:]
            if tail == b"\n\n" or b"\n\n" in chunk:
                break
    total = time.perf_counter()
    conn.close()
    return (first - started) * 1000, (total - started) * 1000, size


def measure_read(app, name, path, until_snapshot=False):
    reset_peak(app)
    used = cpu_seconds(app)
    ttfb, total, size = timed_read(app, path, until_snapshot)
    time.sleep(0.2)
    used = cpu_seconds(app) - used
    rate = size / MIB / (total / 1000) if total > 0 else 0
    print(
        f"{name}: first byte {ttfb:.1f} ms, all {total:.1f} ms, {size / MIB:.1f} MiB"
        f" ({rate:.0f} MiB/s); daemon CPU {used:.2f} s; peak {peak(app):.1f} MB, after {rss(app):.1f} MB",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=6447, help="python outputs in the long session")
    parser.add_argument("--output-kib", type=int, default=8, help="KiB of output per cell")
    parser.add_argument("--settle", type=float, default=60, help="seconds to wait before the settled RSS")
    parser.add_argument("--answer-mib", type=int, default=7, help="MiB of the long streamed answer (under the 8 MiB reply cap)")
    parser.add_argument("--only", choices=["session", "answer"], help="run only the long session or the long answer")
    parser.add_argument("--protocol", choices=["chat_completions", "responses", "both"], default="both",
                        help="the protocol of the long answer")
    args = parser.parse_args()
    if args.only != "answer":
        long_session(args)
    if args.only != "session":
        for protocol in ("chat_completions", "responses"):
            if args.protocol in (protocol, "both"):
                long_answer(args, protocol)


def long_answer(args, protocol):
    provider = LongAnswerProvider(args.answer_mib * MIB, protocol)
    try:
        with Albedo(provider, protocol=protocol) as app:
            session = app.session()
            dead = dead_reader(app, session)
            took = measured_turn(app, session, "a long answer please")
            print(
                f"{args.answer_mib} MiB answer ({protocol}), one dead reader: {took:.1f} s, peak {peak(app):.1f} MB,"
                f" after {rss(app):.1f} MB",
                flush=True,
            )
            print_settled_rss(app, args.settle, f"the answer ({protocol})")
            dead.close()
            # The next turn sends the answer back.
            reset_peak(app)
            app.prompt(session, "short").close()
            app.idle(session, timeout=300)
            print(f"turn after the answer ({protocol}): peak {peak(app):.1f} MB, after {rss(app):.1f} MB", flush=True)
    finally:
        provider.close()


def long_session(args):
    sizes = []

    def script(request):
        sizes.append(len(json.dumps(request)))
        return text("done")

    provider = Provider(script)
    try:
        with Albedo(provider) as app:
            session = app.session()
            holder = {}

            def prepare(app):
                holder["bytes"] = write_transcript(app, session, args.items, args.output_kib)

            app.restart(prepare=prepare)
            print(f"transcript: {holder['bytes'] / MIB:.1f} MiB in {2 * args.items + 2} items among 1,000 sessions", flush=True)
            print(f"RSS after restart: {rss(app):.1f} MB", flush=True)
            app.cli("sessions")
            print(f"RSS after albedo sessions: {rss(app):.1f} MB", flush=True)
            measure_read(app, "GET /sessions/{id}?tail=200", f"/sessions/{session}?tail=200")
            measure_read(app, "stream snapshot ?tail=200", f"/sessions/{session}/stream?tail=200", until_snapshot=True)
            measure_read(app, "stream snapshot, whole", f"/sessions/{session}/stream", until_snapshot=True)
            measure_read(app, "GET /history, whole", f"/sessions/{session}/history")
            print_settled_rss(app, args.settle, "the reads")
            measured_turn(app, session, "one more")
            print(
                f"turn: request body {sizes[-1] / MIB:.1f} MiB, peak {peak(app):.1f} MB,"
                f" after {rss(app):.1f} MB",
                flush=True,
            )
            print_settled_rss(app, args.settle, "the turn")
    finally:
        provider.close()


if __name__ == "__main__":
    main()
