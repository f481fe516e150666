"""Starts albedo's Python kernel as the daemon does and speaks its protocol.

The kernel is the real program: the bootstrap the daemon gives to
"python3 -c" (read from program.go, where the daemon's copy lives) and the
files of python/, sent as the first frame in the order programFrame sends
them. The process gets what the daemon gives it: stdin from /dev/null,
stdout and stderr on one pipe, requests on fd 3 and events on fd 4, and a
process group of its own.

Every wait here waits for a state (a frame, a marker in the output, an
exit) and gives up after a deadline only so that a broken kernel fails a
test instead of hanging it.
"""

import json
import os
import queue
import re
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM_DIR = os.path.dirname(HERE)  # adapters/pykernel/python
PACKAGE_DIR = os.path.dirname(PROGRAM_DIR)  # adapters/pykernel

# How long any one wait may take before the test fails.
DEADLINE = 30.0

_spawn_lock = threading.Lock()


def _program_go():
    with open(os.path.join(PACKAGE_DIR, "program.go"), encoding="utf-8") as f:
        return f.read()


def bootstrap():
    """The code the daemon passes to python3 -c."""
    found = re.search(r"const bootstrap = `(.*?)`", _program_go(), re.S)
    if found is None:
        raise RuntimeError("program.go no longer holds `const bootstrap = `...``: teach kernelproc.py where the bootstrap is")
    return found.group(1)


def program_files():
    """The kernel's files as [name, source] pairs, in programFrame's order."""
    names = re.findall(r'\{"([\w.]+\.py)", \w+Source\}', _program_go())
    if not names:
        raise RuntimeError("program.go's programFrame lists no files: teach kernelproc.py its new form")
    pairs = []
    for name in names:
        with open(os.path.join(PROGRAM_DIR, name), encoding="utf-8") as f:
            pairs.append([name, f.read()])
    return pairs


def frame(message):
    """One frame: a 4-byte big-endian length, then the bytes."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
    return len(body).to_bytes(4, "big") + body


def _high(fd):
    """fd moved above the numbers the child's fds are mapped to."""
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def wait_until(predicate, what, deadline=DEADLINE):
    """Waits until predicate() is true; fails naming what was awaited."""
    end = time.monotonic() + deadline
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.005)


class Kernel:
    """A running kernel process and both ends of its channels."""

    def __init__(self, workspace, env=None, python=None):
        self.workspace = workspace
        ctl_r, ctl_w = (_high(fd) for fd in os.pipe())
        ev_r, ev_w = (_high(fd) for fd in os.pipe())
        out_r, out_w = (_high(fd) for fd in os.pipe())
        environ = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/"),
            "LANG": "C.UTF-8",
        }
        environ.update(env or {})
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, out_w, 2),
            (os.POSIX_SPAWN_DUP2, ctl_r, 3),
            (os.POSIX_SPAWN_DUP2, ev_w, 4),
        ]
        python = python or sys.executable
        # posix_spawn has no working-directory action: the child inherits
        # ours, so it is the workspace for the moment of the spawn.
        with _spawn_lock:
            here = os.getcwd()
            os.chdir(workspace)
            try:
                self.pid = os.posix_spawn(
                    python, [python, "-c", bootstrap()], environ, file_actions=actions, setpgroup=0
                )
            finally:
                os.chdir(here)
        for fd in (ctl_r, ev_w, out_w):
            os.close(fd)
        self.control = ctl_w
        self.events = queue.Queue()
        self.output = bytearray()
        self.output_lock = threading.Lock()
        self.exit_status = None
        self.ids = iter(range(1, sys.maxsize))
        self._readers = [
            threading.Thread(target=self._read_events, args=(ev_r,), daemon=True),
            threading.Thread(target=self._read_output, args=(out_r,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.send(frame(program_files()))
        self.ready = self.next_event("ready")

    # Channels.

    def send(self, data):
        """Writes a request (a dict, or raw frame bytes) to fd 3."""
        if isinstance(data, dict):
            data = frame(data)
        view = memoryview(data)
        while view:
            view = view[os.write(self.control, view):]

    def close_control(self):
        """Closes the kernel's request pipe, as a dying daemon does."""
        if self.control is not None:
            os.close(self.control)
            self.control = None

    def _read_events(self, fd):
        with os.fdopen(fd, "rb") as events:
            while True:
                head = events.read(4)
                if len(head) < 4:
                    break
                body = events.read(int.from_bytes(head, "big"))
                self.events.put(json.loads(body))
        self.events.put(None)

    def _read_output(self, fd):
        with os.fdopen(fd, "rb", buffering=0) as out:
            while True:
                chunk = out.read(65536)
                if not chunk:
                    break
                with self.output_lock:
                    self.output += chunk

    def next_event(self, kind=None):
        """The next event frame; with kind, fails when it is another."""
        try:
            event = self.events.get(timeout=DEADLINE)
        except queue.Empty:
            raise AssertionError("the kernel sent no event (waiting for %s)" % (kind or "any")) from None
        if event is None:
            raise AssertionError("the kernel's event pipe closed (waiting for %s)" % (kind or "any"))
        if kind is not None and event.get("type") != kind:
            raise AssertionError("expected a %s event, got %r" % (kind, event))
        return event

    def take_output(self, marker):
        """The output up to marker, which is removed with it."""
        needle = marker.encode("ascii")
        wait_until(lambda: needle in self.output, "the cell's marker in the output")
        with self.output_lock:
            head, _, rest = bytes(self.output).partition(needle)
            self.output = bytearray(rest)
        return head.decode("utf-8", "replace")

    def wait_output(self, text):
        """Waits until the pending output holds text."""
        needle = text.encode("utf-8")
        wait_until(lambda: needle in self.output, "%r in the output" % text)

    # Cells.

    def start_cell(self, code, cwd=None, limit=32768, host_calls=None):
        """Sends a run request and waits for its started event; returns the
        request (its id and marker)."""
        request = {
            "type": "run",
            "id": next(self.ids),
            "code": code,
            "cwd": cwd or self.workspace,
            "marker": "\n<<%s>>\n" % uuid.uuid4().hex,
            "limit": limit,
        }
        if host_calls is not None:
            request["host_calls"] = host_calls
        self.send(request)
        started = self.next_event("started")
        assert started["id"] == request["id"], started
        return request

    def finish_cell(self, request, on_event=None):
        """Waits for the cell's done event; returns (done, output, others):
        the events that came between (host calls, images, jobs), each also
        given to on_event, which may answer it."""
        others = []
        while True:
            event = self.next_event()
            if event["type"] == "done":
                break
            others.append(event)
            if on_event is not None:
                on_event(event)
        assert event["id"] == request["id"], event
        # A cell that moved its fd 1 elsewhere leaves no marker: its output
        # has no known end.
        output = self.take_output(request["marker"]) if event.get("marked") else ""
        return event, output, others

    def run(self, code, **options):
        """Runs one cell: (done, output, other events)."""
        on_event = options.pop("on_event", None)
        return self.finish_cell(self.start_cell(code, **options), on_event)

    def ok(self, code, **options):
        """Runs a cell that must succeed; returns (done, output, others)."""
        done, output, others = self.run(code, **options)
        if done["status"] != "ok":
            raise AssertionError("cell failed: %s\n%s" % (done.get("error"), output))
        return done, output, others

    def value(self, code, **options):
        """The value of a cell that must succeed."""
        return self.ok(code, **options)[0].get("value")

    # Lifecycle.

    def wait_exit(self):
        """Waits for the kernel to exit; its waitpid status."""
        if self.exit_status is None:
            end = time.monotonic() + DEADLINE
            while True:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    self.exit_status = status
                    break
                if time.monotonic() > end:
                    raise AssertionError("the kernel did not exit")
                time.sleep(0.005)
        return self.exit_status

    def stop(self):
        """Kills the kernel's process group and reaps it."""
        if self.exit_status is None:
            try:
                os.killpg(self.pid, 9)
            except OSError:
                pass
            self.wait_exit()
        self.close_control()
        for reader in self._readers:
            reader.join(DEADLINE)


def gone(pid):
    """True when process pid has ended (it is missing or a zombie)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


class KernelTestCase(__import__("unittest").TestCase):
    """A test with a kernel of its own in a fresh workspace (self.ws), with
    a TMPDIR of its own (self.tmp)."""

    def setUp(self):
        import tempfile

        root = tempfile.TemporaryDirectory(prefix="albedo-kernel-test-")
        self.addCleanup(root.cleanup)
        base = os.path.realpath(root.name)
        self.ws = os.path.join(base, "ws")
        self.tmp = os.path.join(base, "tmp")
        os.mkdir(self.ws)
        os.mkdir(self.tmp)
        self.kernel = Kernel(self.ws, env={"TMPDIR": self.tmp})
        self.addCleanup(self.kernel.stop)

    def path(self, *names):
        """A path in the workspace."""
        return os.path.join(self.ws, *names)
