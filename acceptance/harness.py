"""Test fixtures for albedo's acceptance suites.

Two pieces:

* ``Provider`` is a fake model server. It speaks the Chat Completions and the
  Responses streaming protocols on 127.0.0.1 and answers every request with
  whatever the test's script returns (``text(...)`` or ``python(...)``).
* ``Albedo`` is a context manager owning one daemon: a private ALBEDO_HOME,
  a workspace, a config.json pointing at the fake provider, and helpers that
  talk to the daemon through its CLI and its HTTP API.

Standard library only. The binary under test is ``$ALBEDO_TEST_BINARY`` when
set, else ``<repo>/bin/albedo``. With ``ALBEDO_TEST_STORE=postgresql`` every
daemon keeps its data in a database of its own, created on the PostgreSQL
server ``$ALBEDO_TEST_POSTGRES_URL`` names (with psql) and dropped when the
``Albedo`` ends; ``run.py --store postgresql`` sets that up.
"""

from __future__ import annotations

import http.client
import http.server
import json
import os
from pathlib import Path
import glob
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "Albedo", "EventStream", "LocalServer", "Provider", "QuietHandler", "alive", "binary", "cell_result", "exclusive",
    "http_error", "python", "python_results", "read", "recorded", "start_albedo", "text", "tool", "turn", "wait_gone", "wait_until",
]

REPO = Path(__file__).resolve().parent.parent
"""The repository root: acceptance/ lives directly under it."""

PYTHON_TIMEOUT_MS = 60000
"""The ``timeout_ms`` every scripted python call carries."""

_SCRUBBED = ("ALBEDO_API_KEY", "ALBEDO_TOKEN", "ALBEDO_PORT", "ALBEDO_STORE_URL")
"""Variables removed from the daemon's environment so tests stay isolated."""


# --------------------------------------------------------------------------
# scripted replies


class Reply:
    """One scripted model answer: assistant text, a ``python`` tool call, or
    a call of another tool (``name``) with JSON arguments (``value``)."""

    __slots__ = ("kind", "value", "reasoning", "timeout_ms", "name")

    def __init__(self, kind: str, value: str, reasoning: str | None, timeout_ms: int = PYTHON_TIMEOUT_MS, name: str = "python"):
        self.kind = kind
        self.value = value
        self.reasoning = reasoning
        self.timeout_ms = timeout_ms
        self.name = name

    def call(self) -> tuple[str, str] | None:
        """The tool call's name and arguments, None for no call."""
        if self.kind == "python":
            return "python", json.dumps({"code": self.value, "timeout_ms": self.timeout_ms})
        if self.kind == "tool":
            return self.name, self.value
        return None

    def __repr__(self) -> str:
        return f"Reply({self.kind!r}, {self.value!r}, reasoning={self.reasoning!r})"


def text(value: str, *, reasoning: str | None = None) -> Reply:
    """A reply that answers with assistant text ``value``."""
    return Reply("text", str(value), reasoning)


def python(code: str, *, reasoning: str | None = None, timeout_ms: int = PYTHON_TIMEOUT_MS) -> Reply:
    """A reply that calls the ``python`` tool with ``code`` (and ``timeout_ms``)."""
    return Reply("python", str(code), reasoning, timeout_ms)


def tool(name: str, arguments: dict, *, reasoning: str | None = None) -> Reply:
    """A reply that calls the tool ``name`` with ``arguments``."""
    return Reply("tool", json.dumps(arguments), reasoning, name=name)


class Recorded:
    """A reply that sends ``body``, the bytes of a recorded stream, as is."""

    __slots__ = ("body",)

    def __init__(self, body: bytes):
        self.body = body

    def __repr__(self) -> str:
        return f"Recorded({len(self.body)} bytes)"


def recorded(body: bytes) -> Recorded:
    """A reply that replays the raw event-stream bytes ``body``."""
    return Recorded(bytes(body))


class Refusal:
    """A reply that answers the request with HTTP ``status`` and JSON ``body``."""

    __slots__ = ("status", "body")

    def __init__(self, status: int, body):
        self.status = status
        self.body = body

    def __repr__(self) -> str:
        return f"Refusal({self.status})"


def refusal(status: int, body) -> Refusal:
    """A reply that refuses the request with ``status`` and the JSON ``body``."""
    return Refusal(int(status), body)


# --------------------------------------------------------------------------
# request checks


class _WireChecks:
    """Checks every request a Provider receives against OpenAI's published
    request schemas (see wirecheck.py) and keeps the problems found, which
    the acceptance runner reports against the test that sent them."""

    def __init__(self):
        self._lock = threading.Lock()
        self._checker = None
        self._loaded = False
        self.problems: list[str] = []
        self.checked = 0

    def check(self, path: str, request) -> None:
        with self._lock:
            if not self._loaded:
                self._loaded = True
                import wirecheck

                if wirecheck.SCHEMAS.exists():
                    self._checker = wirecheck.Checker()
            if self._checker is None:
                return
            protocol = "chat_completions" if path.rstrip("/").endswith("/chat/completions") else "responses"
            self.checked += 1
            for problem in self._checker.check(protocol, request):
                self.problems.append(f"{protocol} request to {path}: {problem}")

    def take(self) -> list[str]:
        """Returns and forgets the problems found so far."""
        with self._lock:
            out, self.problems = self.problems, []
            return out


WIRE_CHECKS = _WireChecks()
"""Every harness Provider's requests go through this one checker."""


def failure(status: int, message: str) -> Reply:
    """A reply that answers the request with HTTP ``status`` and an
    OpenAI-style error body carrying ``message``."""
    reply = Reply("fail", str(message), None)
    reply.timeout_ms = int(status)
    return reply


def exclusive(target):
    """Marks a test function or class as needing a daemon to itself.

    The acceptance runner executes tests one at a time, so the marker is
    informational; the object is returned unchanged apart from the flag.
    """
    target.__albedo_exclusive__ = True
    return target


def _pieces(value: str, size: int) -> list[str]:
    """Splits ``value`` into chunks of ``size`` characters (at least one)."""
    if not value:
        return [""]
    return [value[i : i + size] for i in range(0, len(value), size)]


def _few(value: str) -> list[str]:
    """Splits ``value`` into about three pieces, as a model streams text."""
    return _pieces(value, max(1, -(-len(value) // 3)))


# --------------------------------------------------------------------------
# fake model provider


class Provider:
    """A threaded fake model server for both streaming protocols.

    ``script(request_json)`` is called once per model request and returns a
    reply from ``text()`` or ``python()``. Every request whose path ends in
    ``/chat/completions`` or ``/responses`` is recorded in ``requests`` as
    ``{"path", "authorization", "model", "request", "bytes"}`` (``bytes``: the
    size of the body as received) in arrival order; the
    protocol of the answer follows the path. ``url`` is the server's base
    address, to which tests may append prefixes such as ``/alpha/v1``.
    """

    def __init__(self, script):
        self.script = script
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        provider = self

        class Handler(_ProviderHandler):
            owner = provider

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="albedo-fake-provider", daemon=True
        )
        self._thread.start()
        self._closed = False

    def _record(self, path: str, authorization, request: dict, size: int = 0) -> int:
        """Appends one request and returns its 1-based number."""
        with self._lock:
            self.requests.append(
                {
                    "path": path,
                    "authorization": authorization,
                    "model": request.get("model") if isinstance(request, dict) else None,
                    "request": request,
                    "bytes": size,
                }
            )
            return len(self.requests)

    def close(self) -> None:
        """Stops serving. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "Provider":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _ProviderHandler(http.server.BaseHTTPRequestHandler):
    """Request handler behind ``Provider``; ``owner`` is set per server."""

    owner: Provider
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes

    def log_message(self, *_args) -> None:
        pass

    # -- plumbing ------------------------------------------------------------

    def _json(self, status: int, value) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send(self, chunk: str) -> None:
        self.wfile.write(chunk.encode())
        self.wfile.flush()

    def do_GET(self) -> None:
        self._quietly(lambda: self._json(404, {"error": {"message": "not found"}}))

    def do_POST(self) -> None:
        self._quietly(self._answer)

    def _quietly(self, action) -> None:
        """Runs ``action`` ignoring a peer that went away mid-reply."""
        try:
            action()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True

    # -- the model endpoint ----------------------------------------------------

    def _answer(self) -> None:
        path = self.path
        route = urllib.parse.urlsplit(path).path.rstrip("/")
        if route.endswith("/chat/completions"):
            chat = True
        elif route.endswith("/responses"):
            chat = False
        else:
            self._json(404, {"error": {"message": f"no model endpoint at {path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if len(raw) < length:
            # The client gave the request up before its body was all sent
            # (albedo's HTTP client sends the headers first, and a turn
            # interrupted then cancels the request): nothing was asked.
            self.close_connection = True
            return
        try:
            request = json.loads(raw or b"null")
        except ValueError as error:
            self._json(400, {"error": {"message": f"request is not JSON: {error}"}})
            return
        number = self.owner._record(path, self.headers.get("Authorization"), request, len(raw))
        WIRE_CHECKS.check(route, request)
        try:
            reply = self.owner.script(request)
            if isinstance(reply, str):
                reply = text(reply)
            if isinstance(reply, Recorded):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.write(reply.body)
                self.wfile.flush()
                self.close_connection = True
                return
            if isinstance(reply, Refusal):
                self._json(reply.status, reply.body)
                return
            if not isinstance(reply, Reply):
                raise TypeError(f"script returned {reply!r}, not text()/python()/failure()")
        except Exception as error:  # a broken script must not hang the daemon
            self._json(
                500,
                {"error": {"message": f"fixture script failed: {error!r}", "type": "fixture_error"}},
            )
            return
        if reply.kind == "fail":
            self._json(reply.timeout_ms, {"error": {"message": reply.value, "type": "fixture_error"}})
            return
        model = request.get("model") if isinstance(request, dict) else None
        usage = (max(1, len(raw) // 4), 8)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if chat:
            self._stream_chat(number, model, reply, usage)
        else:
            self._stream_responses(number, model, reply, usage)
        self.close_connection = True

    def _stream_chat(self, number: int, model, reply: Reply, usage) -> None:
        """Writes a Chat Completions SSE stream for ``reply``."""
        created = int(time.time())
        ident = f"chatcmpl-fixture-{number}"

        def chunk(delta, finish=None, **extra):
            value = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            value.update(extra)
            self._send("data: " + json.dumps(value) + "\n\n")

        chunk({"role": "assistant"})
        if reply.reasoning:
            for piece in _few(reply.reasoning):
                chunk({"reasoning_content": piece})
        if reply.call():
            name, arguments = reply.call()
            for i, piece in enumerate(_pieces(arguments, 20)):
                call = {"index": 0, "function": {"arguments": piece}}
                if i == 0:
                    call["id"] = f"fixture-call-{number}"
                    call["type"] = "function"
                    call["function"]["name"] = name
                chunk({"tool_calls": [call]})
            chunk({}, "tool_calls")
        else:
            for piece in _few(reply.value):
                chunk({"content": piece})
            chunk({}, "stop")
        prompt, completion = usage
        self._send(
            "data: "
            + json.dumps(
                {
                    "id": ident,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [],
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                    },
                }
            )
            + "\n\n"
        )
        self._send("data: [DONE]\n\n")

    def _stream_responses(self, number: int, model, reply: Reply, usage) -> None:
        """Writes a Responses API SSE stream for ``reply``."""
        ident = f"resp_fixture_{number}"
        created = int(time.time())
        sequence = iter(range(1 << 30))

        def event(kind, **fields):
            value = {"type": kind, "sequence_number": next(sequence), **fields}
            self._send(f"event: {kind}\ndata: {json.dumps(value)}\n\n")

        def response(status, output, **extra):
            return {
                "id": ident,
                "object": "response",
                "created_at": created,
                "status": status,
                "model": model,
                "output": output,
                **extra,
            }

        event("response.created", response=response("in_progress", []))
        output = []
        if reply.reasoning:
            item_id = f"rs_fixture_{number}"
            for piece in _few(reply.reasoning):
                event(
                    "response.reasoning_summary_text.delta",
                    item_id=item_id,
                    output_index=len(output),
                    summary_index=0,
                    delta=piece,
                )
            output.append(
                {
                    "id": item_id,
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": reply.reasoning}],
                }
            )
        if reply.call():
            name, arguments = reply.call()
            item_id = f"fc_fixture_{number}"
            for piece in _pieces(arguments, 20):
                event(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=len(output),
                    delta=piece,
                )
            output.append(
                {
                    "type": "function_call",
                    "id": item_id,
                    "call_id": f"fixture-call-{number}",
                    "name": name,
                    "arguments": arguments,
                    "status": "completed",
                }
            )
        else:
            item_id = f"msg_fixture_{number}"
            for piece in _few(reply.value):
                event(
                    "response.output_text.delta",
                    item_id=item_id,
                    output_index=len(output),
                    content_index=0,
                    delta=piece,
                )
            output.append(
                {
                    "id": item_id,
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply.value, "annotations": []}],
                }
            )
        prompt, completion = usage
        event(
            "response.completed",
            response=response(
                "completed",
                output,
                usage={
                    "input_tokens": prompt,
                    "output_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            ),
        )


# --------------------------------------------------------------------------
# the daemon under test


def binary() -> Path:
    """The albedo executable the fixtures run."""
    chosen = os.environ.get("ALBEDO_TEST_BINARY")
    return Path(chosen).absolute() if chosen else REPO / "bin" / "albedo"


def alive(pid) -> bool:
    """Whether ``pid`` names a running (not zombie) process."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # the state letter follows the parenthesised command name
    return stat[stat.rfind(")") + 2 : stat.rfind(")") + 3] != "Z"


WAIT_SECONDS = 30.0
"""How long a test waits for a state before it fails; generous on purpose."""


def wait_until(condition, seconds: float = WAIT_SECONDS, interval: float = 0.02) -> bool:
    """Polls ``condition`` until it holds; False when ``seconds`` pass first.

    The condition is asked once more at the deadline, so a state reached
    during the last pause still counts. Tests assert on the result:
    ``self.assertTrue(wait_until(lambda: ...), "what never happened")``.
    """
    deadline = time.monotonic() + seconds
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return bool(condition())
        time.sleep(interval)


def _psql(url: str, statement: str) -> str:
    """Runs one SQL statement on the PostgreSQL server at ``url``; returns
    what it printed (rows unaligned, one a line)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql")) or [shutil.which("psql") or "psql"]
    result = subprocess.run(
        [found[-1], url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", statement],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60,
    )
    if result.returncode != 0:
        raise AssertionError(f"psql {statement!r} failed: {result.stdout}")
    return result.stdout


class PostgresDatabase:
    """A database of its own on the test server (or on ``server``, a
    URL), for one daemon."""

    def __init__(self, server: str | None = None):
        server = server or os.environ.get("ALBEDO_TEST_POSTGRES_URL")
        if not server:
            raise AssertionError("a PostgreSQL store needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
        self.server = server
        self.name = "albedo_acceptance_" + secrets.token_hex(6)
        parts = urllib.parse.urlsplit(server)
        self.url = urllib.parse.urlunsplit(parts._replace(path="/" + self.name))
        _psql(server, f"CREATE DATABASE {self.name}")

    def query(self, statement: str) -> str:
        """Runs a statement on the daemon's database; returns its rows."""
        return _psql(self.url, statement)

    def drop(self) -> None:
        _psql(self.server, f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


class PostgresServer:
    """A throwaway PostgreSQL cluster of one test's own, which the test may
    stop and start (the shared test server must keep serving the others).
    Made as scripts/postgres.sh makes the test server: initdb into a
    temporary folder (as the user nobody when run as root), no fsync, a
    free loopback port. ``url`` names its postgres database."""

    def __init__(self):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            raise AssertionError("this test needs PostgreSQL's initdb and pg_ctl (scripts/test.sh installs them)")
        self.bindir = Path(found[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="albedo-postgres-"))
        self.as_user = []
        if os.getuid() == 0:
            shutil.chown(self.dir, "nobody")
            self.as_user = ["runuser", "-u", "nobody", "--"]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        password = secrets.token_hex(16)
        (self.dir / "pw").write_text(password + "\n")
        if self.as_user:
            shutil.chown(self.dir / "pw", "nobody")
        self._run("initdb", "-D", str(self.dir / "data"), "-U", "albedo", f"--pwfile={self.dir / 'pw'}",
                  "--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8")
        (self.dir / "pw").unlink()
        self.url = f"postgres://albedo:{password}@127.0.0.1:{self.port}/postgres?sslmode=disable"
        self.start()

    def _run(self, program: str, *args: str) -> None:
        result = subprocess.run([*self.as_user, str(self.bindir / program), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError(f"{program} {' '.join(args)} failed: {result.stdout}")

    def start(self) -> None:
        """Starts the server and waits until it accepts connections."""
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "server.log"), "-w", "-t", "60",
                  "-o", f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off "
                  "-c synchronous_commit=off -c full_page_writes=off", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stops the server as ``pg_ctl stop -m mode`` does."""
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", mode, "-w", "stop")

    def close(self) -> None:
        """Stops the server if it runs, and removes its folder."""
        if (self.dir / "data" / "postmaster.pid").exists():
            try:
                self.stop("immediate")
            except AssertionError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


def postgres_store() -> bool:
    """Whether daemons keep their data in PostgreSQL (ALBEDO_TEST_STORE)."""
    return os.environ.get("ALBEDO_TEST_STORE") == "postgresql"


def processes(argv_prefix: list[str], cwd: str | None = None) -> set[int]:
    """The pids of the processes whose command line starts with
    ``argv_prefix`` (and that run in ``cwd`` when given), seen from outside
    any kernel: a kernel runs in a PID namespace of its own, so the pids a
    cell sees are not the machine's."""
    prefix = b"".join(arg.encode() + b"\0" for arg in argv_prefix)
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if not f.read().startswith(prefix):
                    continue
            if cwd is None or os.readlink(f"/proc/{entry}/cwd") == os.path.realpath(cwd):
                found.add(int(entry))
        except OSError:
            pass  # gone, or not ours
    return found


def kernel_processes(workspace) -> set[int]:
    """The pids of the Python kernels running in ``workspace`` (not the
    sandbox helpers that started them)."""
    found = set()
    for pid in processes([], cwd=str(workspace)):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if os.path.basename(argv[0]).startswith(b"python") and b"_albedo_kernel" in b" ".join(argv):
                found.add(pid)
        except OSError:
            pass
    return found


def wait_gone(pid, seconds: float) -> bool:
    """Polls until ``pid`` has exited; returns False on timeout."""
    return wait_until(lambda: not alive(pid), seconds, interval=0.05)


class Albedo:
    """One isolated albedo daemon, started through the CLI.

    On enter: a temporary ``root`` holding ``home`` (ALBEDO_HOME, mode 0700),
    ``workspace`` and a fake user HOME; ``extensions.json`` with the model
    catalog refresh off; ``config.json`` naming the fake provider (or
    ``providers`` when given); then ``prepare(app)``; then ``albedo sessions``
    starts the daemon and ``connection`` holds daemon.json. On exit the daemon
    is shut down and ``root`` removed.
    """

    def __init__(
        self,
        provider: Provider | None = None,
        *,
        protocol: str = "chat_completions",
        providers: dict | None = None,
        prepare=None,
    ):
        self.provider = provider
        self.protocol = protocol
        self.providers = providers
        self.prepare = prepare
        self.root: Path | None = None
        self.home: Path | None = None
        self.workspace: Path | None = None
        self.connection: dict | None = None
        self._user_home: Path | None = None
        self.database: PostgresDatabase | None = None

    # -- lifecycle -------------------------------------------------------------

    def __enter__(self) -> "Albedo":
        self.root = Path(tempfile.mkdtemp(prefix="albedo-acceptance-"))
        try:
            self.home = self.root / "home"
            self.home.mkdir(mode=0o700)
            self.workspace = self.root / "workspace"
            self.workspace.mkdir()
            self._user_home = self.root / "user-home"
            self._user_home.mkdir()
            (self.home / "extensions.json").write_text(
                json.dumps({"models": {"refreshHours": 0}})
            )
            (self.home / "config.json").write_text(json.dumps(self._config()))
            if postgres_store():
                self.database = PostgresDatabase()
            if self.prepare is not None:
                self.prepare(self)
            self._start()
            if self.database is not None and (self.home / "albedo.sqlite").exists():
                raise AssertionError("a daemon given a PostgreSQL store made albedo.sqlite")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._stop()
        finally:
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
            if self.database is not None:
                self.database.drop()
                self.database = None

    def _config(self) -> dict:
        """The initial config.json document."""
        if self.providers is not None:
            if not self.providers:
                return {"providers": {}}
            return {"active": next(iter(self.providers)), "providers": self.providers}
        if self.provider is None:
            return {"providers": {}}
        return {
            "active": "fixture",
            "providers": {
                "fixture": {
                    "baseUrl": self.provider.url,
                    "apiKey": "fixture-key",
                    "model": "fixture-model",
                    "protocol": self.protocol,
                }
            },
        }

    def env(self) -> dict:
        """The environment every albedo process runs with."""
        env = dict(os.environ)
        for name in _SCRUBBED:
            env.pop(name, None)
        env["ALBEDO_HOME"] = str(self.home)
        env["HOME"] = str(self._user_home)
        env["ALBEDO_PARENT_PID"] = str(os.getpid())
        if self.database is not None:
            env["ALBEDO_STORE_URL"] = self.database.url
        return env

    def log(self) -> str:
        """All of daemon.log, for what a test waits to find in it (a tail
        can lose a line under later warnings)."""
        try:
            return (self.home / "daemon.log").read_text(errors="replace")
        except (OSError, TypeError):
            return ""

    def _log_tail(self, size: int = 6000) -> str:
        """The end of daemon.log, for failure messages."""
        try:
            data = (self.home / "daemon.log").read_text(errors="replace")
        except (OSError, TypeError):
            return "(no daemon.log)"
        return data[-size:] if data else "(daemon.log is empty)"

    def _read_connection(self, *, not_pid=None, seconds: float = 15) -> dict:
        """Waits for daemon.json to name a live daemon (other than ``not_pid``)."""
        path = self.home / "daemon.json"
        deadline = time.monotonic() + seconds
        seen = None
        while True:
            try:
                seen = json.loads(path.read_text())
                pid = seen.get("pid")
                if pid != not_pid and alive(pid):
                    return seen
            except (OSError, ValueError, AttributeError):
                pass
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"daemon.json never named a live daemon (last read: {seen!r})\n"
                    f"--- daemon.log ---\n{self._log_tail()}"
                )
            time.sleep(0.05)

    def executable(self) -> Path:
        """The albedo binary this daemon's CLI commands run (and so the
        daemon): ``binary()``; a subclass may run another copy."""
        return binary()

    def _start(self, *, not_pid=None) -> None:
        executable = self.executable()
        if not executable.exists():
            raise AssertionError(
                f"albedo binary not found at {executable}; build it with "
                "`bash scripts/build.sh` or set ALBEDO_TEST_BINARY"
            )
        self.cli("sessions")
        self.connection = self._read_connection(not_pid=not_pid)

    def _stop(self) -> None:
        """Asks the daemon to exit; kills it if it lingers past 10 s."""
        connection, self.connection = self.connection, None
        if not connection:
            return
        pid = connection.get("pid")
        try:
            self._request(connection, "/shutdown", {}).close()
        except (OSError, http.client.HTTPException, ValueError):
            pass
        if not wait_gone(pid, 10) and alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            wait_gone(pid, 5)

    def restart(self, *, crash: bool = False, prepare=None) -> None:
        """Stops the daemon (SIGKILL when ``crash``, else /shutdown), runs
        ``prepare(app)``, and starts it again through the CLI."""
        pid = self.connection["pid"]
        if crash:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if not wait_gone(pid, 10):
                raise AssertionError(f"daemon {pid} survived SIGKILL")
        else:
            try:
                self.api("/shutdown", {}).close()
            except (OSError, http.client.HTTPException):
                pass  # the daemon may close the connection as it exits
            if not wait_gone(pid, 10):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
                raise AssertionError(
                    f"daemon {pid} did not exit within 10 s of /shutdown\n"
                    f"--- daemon.log ---\n{self._log_tail()}"
                )
        self.connection = None
        if prepare is not None:
            prepare(self)
        self._start(not_pid=pid)

    # -- talking to the daemon ---------------------------------------------------

    @staticmethod
    def _request(connection, path, body=None, *, method=None, headers=None):
        request_headers = {"Authorization": f"Bearer {connection['token']}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            request_headers["Content-Type"] = "application/json"
        request_headers.update(headers or {})
        request = urllib.request.Request(
            f"http://127.0.0.1:{connection['port']}{path}",
            data=data,
            headers=request_headers,
            method=method or ("POST" if body is not None else "GET"),
        )
        return urllib.request.urlopen(request, timeout=30)

    def api(self, path: str, body=None, *, method: str | None = None, headers: dict | None = None):
        """An authorised request to the daemon; returns the open response.

        ``body`` is sent as JSON; the method defaults to POST with a body and
        GET without. A 4xx/5xx raises ``urllib.error.HTTPError``.
        """
        if not self.connection:
            raise AssertionError("the daemon is not running")
        return self._request(self.connection, path, body, method=method, headers=headers)

    def cli(self, *args) -> str:
        """Runs ``albedo ARGS`` in the workspace; fails the test on a non-zero
        exit; returns stdout."""
        argv = [str(self.executable()), *map(str, args)]
        try:
            result = subprocess.run(
                argv,
                cwd=self.workspace,
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=60,
            )
        except subprocess.TimeoutExpired as error:
            raise AssertionError(
                f"{' '.join(argv)} timed out after 60 s (a detached daemon must not "
                f"hold the CLI's stdout/stderr)\nstdout: {error.stdout!r}\n"
                f"stderr: {error.stderr!r}\n--- daemon.log ---\n{self._log_tail()}"
            ) from None
        if result.returncode != 0:
            raise AssertionError(
                f"{' '.join(argv)} exited {result.returncode}\n"
                f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}\n"
                f"--- daemon.log ---\n{self._log_tail()}"
            )
        return result.stdout

    def session(self, workspace=None) -> str:
        """Creates a session with ``albedo new`` and returns its id."""
        output = self.cli("new", str(workspace or self.workspace))
        return json.loads(output)["session"]

    def prompt(self, session: str, content: str):
        """Sends a user message; returns the open response."""
        return self.api(f"/sessions/{session}/events", {"content": content})

    def idle(self, session: str, timeout: float = 30) -> None:
        """Waits until the session's turn has finished."""
        deadline = time.monotonic() + timeout
        while True:
            with self.api(f"/sessions/{session}/status") as response:
                status = json.load(response)
            if not status.get("running"):
                return
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"session {session} still running after {timeout} s: {status!r}\n"
                    f"--- daemon.log ---\n{self._log_tail()}"
                )
            time.sleep(0.05)

    def events(self, session: str) -> list:
        """The first snapshot of the session's event stream."""
        with self.api(f"/sessions/{session}/stream") as response:
            while True:
                line = response.readline()
                if not line:
                    raise AssertionError(f"stream of {session} ended before any data line")
                if line.startswith(b"data: "):
                    return json.loads(line[6:])["events"]

    def history(self, session: str) -> dict:
        """The session's history document."""
        with self.api(f"/sessions/{session}/history") as response:
            return json.load(response)


def start_albedo(add_cleanup, script, *, daemon=None, **options) -> tuple[Provider, Albedo]:
    """Starts a fake provider that answers with ``script`` and a daemon over
    it: ``daemon`` (``Albedo`` or a subclass) made with ``options``.
    ``add_cleanup`` (a test's ``addCleanup``, or ``addClassCleanup``) stops
    the daemon, then the provider. Returns the provider and the daemon."""
    provider = Provider(script)
    add_cleanup(provider.close)
    app = (daemon or Albedo)(provider, **options)
    app.__enter__()
    add_cleanup(app.__exit__, None, None, None)
    return provider, app


class EventStream:
    """Reads a session's event stream (``/sessions/{id}/stream``) on a
    thread: ``pages`` holds the events of each page as it came, the first
    being the snapshot."""

    def __init__(self, app: Albedo, session: str):
        self.response = app.api(f"/sessions/{session}/stream")
        self.pages: list = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for line in self.response:
                if line.startswith(b"data: "):
                    page = json.loads(line[6:])
                    with self.lock:
                        self.pages.append(page["events"] if "events" in page else [page])
        except (OSError, ValueError, AttributeError):
            pass  # closed by the test or by a crash

    def live(self) -> list:
        """The events that came after the snapshot, in order."""
        with self.lock:
            return [event for page in self.pages[1:] for event in page]

    def close(self) -> None:
        self.response.close()


def python_results(app: Albedo, session: str, field: str = "result") -> list:
    """Every python result (or, with ``field="trace"``, trace) of a
    session, oldest first, as dicts."""
    return [
        json.loads(part["value"])
        for entry in app.history(session)["items"]
        if entry["kind"] == "tool_result"
        for part in entry["content"]
        if part["kind"] == "json" and part["field"] == field
    ]


def turn(app: Albedo, session: str, prompt: str, timeout: float = 60) -> None:
    """Sends ``prompt`` and waits until its turn has ended."""
    app.prompt(session, prompt).close()
    app.idle(session, timeout=timeout)


def cell_result(app: Albedo, session: str, prompt: str, timeout: float = 60) -> dict:
    """Sends ``prompt``, waits until its turn has ended and returns the
    session's latest python result."""
    turn(app, session, prompt, timeout)
    return python_results(app, session)[-1]


def read(app: Albedo, path: str):
    """The decoded JSON of a GET of ``path`` on the daemon's API."""
    with app.api(path) as response:
        return json.load(response)


def http_error(test, call) -> tuple[int, dict]:
    """Asserts that ``call()`` (an API request) fails with an HTTP error;
    returns its status and decoded JSON body."""
    with test.assertRaises(urllib.error.HTTPError) as caught:
        call().close()
    return caught.exception.code, json.load(caught.exception)


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A request handler for a test's stand-in server: it logs nothing and
    answers with ``reply``."""

    def log_message(self, *_args) -> None:
        pass

    def reply(self, status: int, body: bytes, *, content_type: str | None = "application/json", headers: dict | None = None) -> None:
        """Sends a whole answer: status, headers, length and body."""
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class LocalServer:
    """A test's stand-in HTTP server on 127.0.0.1, serving ``handler`` on a
    thread from construction until ``close``; ``url`` is its address."""

    def __init__(self, handler):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
