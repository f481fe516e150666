"""How long a turn's first cell waits for its session's Python kernel.

    python3 bench/first_cell.py [--repeat N] [--think-ms T] [--protocol P]

Two daemons of one binary run side by side, one as configured by default
(the kernel starts while the model answers a turn's first request) and one
with ALBEDO_KERNEL_WARMUP=0 (the kernel starts with the first cell). Each
round sends, to each daemon in turn, the first message of a new session
(so no kernel runs for it yet); a fake provider answers the turn's first
request, after `--think-ms` (default 0), with a python call printing the
wall-clock time the cell ran at, and the next request with a text. For
each turn it reports, from the moment the message is sent: the cell's
start (the printed time) and the moment the daemon asks the model again
with the cell's output (the second request's arrival). Prints the median
and the spread of `--repeat` (default 20) rounds per daemon, after one
round of each that is not counted (the first kernel in a workspace also
learns its interpreter), and how many kernels each daemon started. Alternating the two daemons makes the machine's
changing load fall on both alike. Figures are for reading, never for
asserting. Build the binary with `bash scripts/build.sh` first, or set
ALBEDO_TEST_BINARY.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import threading
import time

# canned puts acceptance/ on the path, for harness.
from canned import CannedProvider, is_tool_output
from harness import Albedo, binary

CODE = "import time\nprint(repr(time.time()))"
ARGUMENTS = json.dumps({"code": CODE, "timeout_ms": 60000})


class FirstCellProvider(CannedProvider):
    """A model server whose every turn is one python call, then a text: a
    request carrying a tool output gets the text. It notes when each
    request with a tool output arrives."""

    def __init__(self, think):
        self.outputs_at = []
        lock = threading.Lock()

        def answer(number, body):
            arrived = time.time()
            if is_tool_output(body):
                with lock:
                    self.outputs_at.append(arrived)
                return None, 1000
            if think > 0:
                time.sleep(think)  # the model thinking
            return ARGUMENTS, 1000

        super().__init__(answer)


@contextlib.contextmanager
def environment(name, value):
    """Sets an environment variable for the daemons started inside."""
    old = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def first_cell(app, provider):
    """Runs the first turn of a new session; returns the seconds from the
    message to the cell's start and to the request with its output."""
    session = app.session()
    before = len(provider.outputs_at)
    sent = time.time()
    app.prompt(session, "go").close()
    app.idle(session, timeout=120)
    results = [
        json.loads(part["value"])
        for entry in app.history(session)["items"]
        if entry["kind"] == "tool_result"
        for part in entry["content"]
        if part["kind"] == "json" and part["field"] == "result"
    ]
    ran = float(results[0]["output"])
    return ran - sent, provider.outputs_at[before] - sent


def summary(values):
    """The median and the range of values in ms."""
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):7.1f} ms (min {ms[0]:.1f}, max {ms[-1]:.1f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="rounds counted per daemon")
    parser.add_argument("--think-ms", type=int, default=0, help="how long the model takes to answer the first request")
    parser.add_argument("--protocol", default="chat_completions", choices=["chat_completions", "responses"])
    args = parser.parse_args()
    print(f"binary: {binary()}  protocol: {args.protocol}  think: {args.think_ms} ms  rounds: {args.repeat}", flush=True)
    modes = {"warm (default)": None, "cold (ALBEDO_KERNEL_WARMUP=0)": "0"}
    figures = {mode: ([], []) for mode in modes}
    with contextlib.ExitStack() as stack:
        apps = {}
        for mode, value in modes.items():
            provider = FirstCellProvider(args.think_ms / 1000)
            stack.callback(provider.close)
            with environment("ALBEDO_KERNEL_WARMUP", value):
                app = stack.enter_context(Albedo(provider, protocol=args.protocol))
            apps[mode] = (app, provider)
        for round_ in range(args.repeat + 1):
            for mode, (app, provider) in apps.items():
                ran, output = first_cell(app, provider)
                if round_ > 0:
                    figures[mode][0].append(ran)
                    figures[mode][1].append(output)
        # One kernel start per turn, else a cell did not find the kernel
        # warmed for it.
        starts = {mode: (app.home / "daemon.log").read_text(errors="replace").count('msg="python kernel started"')
                  for mode, (app, _) in apps.items()}
    for mode, (ran, output) in figures.items():
        print(f"{mode:32} cell starts: {summary(ran)}; output sent back: {summary(output)};"
              f" {starts[mode]} kernel starts for {args.repeat + 1} turns", flush=True)


if __name__ == "__main__":
    main()
