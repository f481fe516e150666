"""How heavy one long tool call makes the daemon: peak RSS of its turn.

    python3 bench/long_call.py [--mib M] [--settle S]

A fake Chat Completions server answers the first request of a turn with one
python call whose arguments are about `--mib` MiB (default 50): a cell that
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
import http.server
import json
from pathlib import Path
import sys
import threading
import time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "acceptance"))
sys.dont_write_bytecode = True

from harness import Albedo  # noqa: E402

MIB = 1 << 20


class LongCallProvider:
    """A Chat Completions server that answers a user message with one
    python call of about `size` bytes of arguments, and anything else
    (the call's output) with "done". It records the size of each body."""

    def __init__(self, size):
        owner = self
        self.size = size
        self.bodies = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                owner.bodies.append(len(body))
                request = json.loads(body)
                last = request["messages"][-1]
                del body, request
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.send_chunk({"role": "assistant"})
                if last["role"] == "user":
                    self.send_call()
                else:
                    self.send_chunk({"content": "done"})
                    self.send_chunk({}, "stop")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def send_call(self):
                line = "y" * 1023 + "\\n"
                code = 's = """' + line * (owner.size // len(line)) + '"""\nprint(len(s))\n'
                arguments = json.dumps({"code": code, "timeout_ms": 600_000})
                step = 16 << 10
                for at in range(0, len(arguments), step):
                    call = {"index": 0, "function": {"arguments": arguments[at : at + step]}}
                    if at == 0:
                        call.update(id="call-long", type="function")
                        call["function"]["name"] = "python"
                    self.send_chunk({"tool_calls": [call]})
                self.send_chunk({}, "tool_calls")

            def send_chunk(self, delta, finish=None):
                value = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(b"data: " + json.dumps(value).encode() + b"\n\n")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def proc_status(pid, field):
    """One kB field of /proc/PID/status, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no {field} in /proc/{pid}/status")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=50, help="size of the call's arguments in MiB")
    parser.add_argument("--settle", type=float, default=30, help="seconds to wait before the last RSS")
    args = parser.parse_args()
    provider = LongCallProvider(args.mib * MIB)
    try:
        with Albedo(provider) as app:
            pid = app.connection["pid"]
            session = app.session()
            print(f"RSS before the turn: {proc_status(pid, 'VmRSS'):.1f} MB", flush=True)
            Path(f"/proc/{pid}/clear_refs").write_text("5")
            started = time.perf_counter()
            app.prompt(session, "write the long cell").close()
            app.idle(session, timeout=600)
            took = time.perf_counter() - started
            peak, after = proc_status(pid, "VmHWM"), proc_status(pid, "VmRSS")
            calls = [i for i in app.history(session)["items"] if i["kind"] == "tool_call"]
            if len(calls) != 1:
                raise SystemExit(f"the turn made {len(calls)} calls, want 1")
            size = len(calls[0]["arguments"])
            print(
                f"{args.mib} MiB tool call ({size / MIB:.1f} MiB of arguments): turn {took:.1f} s,"
                f" largest request body {max(provider.bodies) / MIB:.1f} MiB,"
                f" peak {peak:.1f} MB, after {after:.1f} MB",
                flush=True,
            )
            time.sleep(args.settle)
            print(f"RSS {args.settle:.0f} s after the turn: {proc_status(pid, 'VmRSS'):.1f} MB", flush=True)
    finally:
        provider.close()


if __name__ == "__main__":
    main()
