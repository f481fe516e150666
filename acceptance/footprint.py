"""What a running daemon holds while it streams something very long: its
memory and CPU time as /proc tells them, a reader of a session's stream
that never reads, and fake model servers that stream one very long answer
or one very long tool call. Shared by the acceptance tests of long
sessions and the benchmarks under bench/."""

from __future__ import annotations

import json
import os
from pathlib import Path
import socket
import time

from harness import LocalServer, QuietHandler

MIB = 1 << 20


# --------------------------------------------------------------------------
# the daemon's process, read from /proc, and a turn measured by it


def status_mb(pid, field):
    """One kB field of /proc/PID/status (VmRSS, VmHWM, ...), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def rss(app):
    """The daemon's resident memory (VmRSS) in MB."""
    return status_mb(app.connection["pid"], "VmRSS")


def peak(app):
    """The daemon's peak resident memory (VmHWM) in MB since it started or
    since the last reset_peak."""
    return status_mb(app.connection["pid"], "VmHWM")


def reset_peak(app):
    """Starts a new peak: VmHWM is set back to the current RSS.

    The daemon is not dumpable, so its /proc files belong to root: run by
    another user, this does nothing and the peak counts from the daemon's
    start, which only makes a bound checked against it stricter."""
    try:
        Path(f"/proc/{app.connection['pid']}/clear_refs").write_text("5")
    except PermissionError:
        pass


def cpu_seconds(app):
    """User and system CPU time the daemon used so far, in seconds."""
    stat = Path(f"/proc/{app.connection['pid']}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured_turn(app, session, prompt, timeout=300):
    """Sends one message from a fresh peak (reset_peak) and waits for the
    turn to end; returns its seconds. peak(app) is then the turn's peak."""
    reset_peak(app)
    started = time.perf_counter()
    app.prompt(session, prompt).close()
    app.idle(session, timeout=timeout)
    return time.perf_counter() - started


def print_settled_rss(app, seconds, after):
    """Waits `seconds`, then prints the row `RSS S s after AFTER: X MB`."""
    time.sleep(seconds)
    print(f"RSS {seconds:.0f} s after {after}: {rss(app):.1f} MB", flush=True)


def served_until_idle(test, app, session, other):
    """Polls the session's status until its turn is over, reading the tail
    of `other` each time: another session is served all along. Returns how
    many times it was."""
    served = 0
    while True:
        with app.api(f"/sessions/{session}/status") as response:
            running = json.load(response)["running"]
        with app.api(f"/sessions/{other}?tail=5") as response:
            test.assertEqual(json.load(response)["id"], other)
        served += 1
        if not running:
            return served


# --------------------------------------------------------------------------
# a reader that never reads


def dead_reader(app, session):
    """Opens the session's event stream on a socket with a small receive
    buffer and never reads it; the caller closes (or finally reads) it."""
    dead = socket.socket()
    dead.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    dead.connect(("127.0.0.1", app.connection["port"]))
    dead.sendall(
        f"GET /sessions/{session}/stream HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{app.connection['port']}\r\n"
        f"Authorization: Bearer {app.connection['token']}\r\n\r\n".encode()
    )
    return dead


# --------------------------------------------------------------------------
# fake model servers that stream something very long


class StreamingHandler(QuietHandler):
    """A fake model server's handler that answers each POST with one event
    stream, written as it goes and ended by closing the connection. A
    subclass's stream(request) writes the stream's events."""

    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        self.server.owner.bodies.append(len(body))
        request = json.loads(body)
        del body
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self.stream(request)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the daemon stopped reading (at its reply cap)

    def stream(self, request):
        raise NotImplementedError

    def send_chunk(self, delta, finish=None):
        """One Chat Completions chunk."""
        value = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        self.wfile.write(b"data: " + json.dumps(value).encode() + b"\n\n")

    def send_done(self):
        """The end of a Chat Completions stream."""
        self.wfile.write(b"data: [DONE]\n\n")

    def send_event(self, value):
        """One Responses event."""
        self.wfile.write(b"event: " + value["type"].encode() + b"\ndata: " + json.dumps(value).encode() + b"\n\n")

    def send_with_text(self, value, piece, pieces):
        """A Responses event whose one "TEXT" string is `pieces` times
        `piece`, written a piece at a time."""
        head, tail = json.dumps(value).encode().split(b'"TEXT"')
        self.wfile.write(b"event: " + value["type"].encode() + b"\ndata: " + head + b'"')
        escaped = json.dumps(piece).encode()[1:-1]
        for _ in range(pieces):
            self.wfile.write(escaped)
        self.wfile.write(b'"' + tail + b"\n\n")


class StreamingProvider:
    """A fake model server on 127.0.0.1 serving a StreamingHandler
    subclass; `bodies` holds the size of each request body it read."""

    def __init__(self, handler):
        self.bodies = []
        self._local = LocalServer(handler)
        self._local.server.daemon_threads = True
        self._local.server.owner = self
        self.url = self._local.url

    def close(self):
        self._local.close()


class LongAnswerProvider(StreamingProvider):
    """A model server that streams one answer of `size` bytes in 16 KiB
    deltas to a request whose last message says "long", and a short one to
    any other. Over Chat Completions (the default) the answer is its
    chunks; over Responses it is sent the way OpenAI sends one: the deltas,
    then the whole text again in response.output_text.done,
    response.content_part.done, response.output_item.done and
    response.completed."""

    def __init__(self, size, protocol="chat_completions"):
        self.size = size
        self.protocol = protocol
        super().__init__(_LongAnswerHandler)


class _LongAnswerHandler(StreamingHandler):
    def stream(self, request):
        owner = self.server.owner
        last = (request.get("messages") or request.get("input"))[-1]
        long = "long" in json.dumps(last)
        piece = ("y" * 1023 + "\n") * 16
        pieces = owner.size // len(piece) if long else 1
        if owner.protocol == "responses":
            self.stream_responses(piece if long else "short", pieces)
        else:
            self.send_chunk({"role": "assistant"})
            for _ in range(pieces):
                self.send_chunk({"content": piece if long else "short"})
            self.send_chunk({}, "stop")
            self.send_done()

    def stream_responses(self, piece, pieces):
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": "TEXT"}
        item = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "content": [part]}
        where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
        self.send_event({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}})
        self.send_event({"type": "response.output_item.added", "output_index": 0,
                         "item": {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}})
        self.send_event({"type": "response.content_part.added", **where, "part": {**part, "text": ""}})
        for _ in range(pieces):
            self.send_event({"type": "response.output_text.delta", **where, "delta": piece})
        self.send_with_text({"type": "response.output_text.done", **where, "text": "TEXT"}, piece, pieces)
        self.send_with_text({"type": "response.content_part.done", **where, "part": part}, piece, pieces)
        self.send_with_text({"type": "response.output_item.done", "output_index": 0, "item": item}, piece, pieces)
        self.send_with_text({"type": "response.completed", "response": {
            "id": "resp_1", "status": "completed", "output": [item],
            "usage": {"input_tokens": 10, "output_tokens": 20}}}, piece, pieces)


class LongCallProvider(StreamingProvider):
    """A Chat Completions server that answers a user message with one
    python call of about `size` bytes of arguments (a cell that assigns a
    string of that size and prints its length), streamed in 16 KiB deltas,
    and anything else (the call's output) with "done"."""

    def __init__(self, size):
        self.size = size
        super().__init__(_LongCallHandler)


class _LongCallHandler(StreamingHandler):
    def stream(self, request):
        last = request["messages"][-1]
        self.send_chunk({"role": "assistant"})
        if last["role"] == "user":
            self.send_call(self.server.owner.size)
        else:
            self.send_chunk({"content": "done"})
            self.send_chunk({}, "stop")
        self.send_done()

    def send_call(self, size):
        line = "y" * 1023 + "\\n"
        code = 's = """' + line * (size // len(line)) + '"""\nprint(len(s))\n'
        arguments = json.dumps({"code": code, "timeout_ms": 600_000})
        step = 16 << 10
        for at in range(0, len(arguments), step):
            call = {"index": 0, "function": {"arguments": arguments[at : at + step]}}
            if at == 0:
                call.update(id="call-long", type="function")
                call["function"]["name"] = "python"
            self.send_chunk({"tool_calls": [call]})
        self.send_chunk({}, "tool_calls")


class RunawayProvider(StreamingProvider):
    """A model server gone runaway, over either protocol: the last user
    message names what grows without end. "answer", "reasoning" and "call"
    stream answer text, reasoning or one python call's arguments in 16 KiB
    deltas; "line" sends a little answer, then one stream line that never
    ends (no newline); "event" sends a little answer, then one event whose
    data lines never end. Each stream stops by itself once `bound` bytes
    are written (1 GiB by default), or as soon as the reader goes away.
    Any other message gets a short answer. `written` holds how many bytes
    each runaway stream wrote."""

    def __init__(self, protocol="chat_completions", bound=1 << 30):
        self.protocol = protocol
        self.bound = bound
        self.written = []
        super().__init__(_RunawayHandler)


class _RunawayHandler(StreamingHandler):
    piece = "y" * 1023 + "\n"

    def stream(self, request):
        owner = self.server.owner
        last = (request.get("messages") or request.get("input"))[-1]
        said = json.dumps(last.get("content"))
        shape = next((s for s in ("answer", "reasoning", "call", "line", "event") if s in said), None)
        if shape is None:
            self.short(owner.protocol)
            return
        self.count = 0
        try:
            self.runaway(owner, shape)
        except OSError:
            pass  # the daemon stopped reading: the stream is over
        owner.written.append(self.count)

    def write(self, data):
        self.wfile.write(data)
        self.count += len(data)

    def short(self, protocol):
        if protocol == "responses":
            item = {"type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "short", "annotations": []}]}
            self.send_event({"type": "response.output_text.delta", "output_index": 0, "delta": "short"})
            self.send_event({"type": "response.completed", "response": {"status": "completed", "output": [item]}})
        else:
            self.send_chunk({"content": "short"})
            self.send_chunk({}, "stop")
            self.send_done()

    def delta(self, protocol, shape, text):
        """One delta of the growing item, as bytes of the stream."""
        if protocol == "responses":
            kind = {"answer": "response.output_text.delta", "reasoning": "response.reasoning_summary_text.delta",
                    "call": "response.function_call_arguments.delta"}[shape]
            value = {"type": kind, "output_index": 0, "delta": text}
            return b"event: " + kind.encode() + b"\ndata: " + json.dumps(value).encode() + b"\n\n"
        delta = {"answer": {"content": text}, "reasoning": {"reasoning_content": text},
                 "call": {"tool_calls": [{"index": 0, "id": "call-runaway", "type": "function",
                                          "function": {"name": "python", "arguments": text}}]}}[shape]
        value = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                 "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        return b"data: " + json.dumps(value).encode() + b"\n\n"

    def runaway(self, owner, shape):
        protocol = owner.protocol
        if shape in ("line", "event"):
            self.write(self.delta(protocol, "answer", "before the runaway"))
            if shape == "line":
                self.write(b'data: {"choices": [{"index": 0, "delta": {"content": "')
                repeat = self.piece.replace("\n", "n").encode() * 16
            else:
                self.write(b"event: response.output_text.delta\ndata: {\n")
                repeat = (b"data: " + self.piece[:-1].encode() + b"\n") * 16
        else:
            if shape == "call" and protocol == "responses":
                added = {"type": "response.output_item.added", "output_index": 0,
                         "item": {"type": "function_call", "call_id": "call-runaway", "name": "python", "arguments": ""}}
                self.write(b"event: response.output_item.added\ndata: " + json.dumps(added).encode() + b"\n\n")
            first = '{"code": "s = \\"' if shape == "call" else "before the runaway "
            self.write(self.delta(protocol, shape, first))
            repeat = self.delta(protocol, shape, self.piece * 16)
        while self.count < owner.bound:
            self.write(repeat)
