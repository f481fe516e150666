"""albedo's Python kernel: one persistent interpreter running the cells of
one session.

The daemon starts the interpreter with a short bootstrap that reads this
program's files from the control pipe, runs them in one namespace (after
tracer.py and cells.py) and calls serve(). From then on both sides speak
frames: a 4-byte big-endian length, then that many bytes of JSON. Requests
arrive on fd 3 and events leave on fd 4; stdin is /dev/null, and stdout and
stderr are one pipe that the daemon reads as the cells' output.

Requests:
  {"type": "run", "id", "code", "cwd", "marker", "limit", "host_calls"?}
    host_calls, sent with the first cell and whenever they change, declare
    the daemon's host calls: [{"name", "doc"?, "params"?: [{"name",
    "optional"?}]}]. Each becomes an async global of that name; a dotted
    name "group.call" becomes the async method call of a global group
    (skills.read).
  {"type": "reply", "id", "result"} or {"type": "reply", "id", "error"}
Events:
  {"type": "ready", "pid", "python", "executable"}
  {"type": "call", "id", "name", "args"}
  {"type": "started", "id"}   (the cell reached the kernel and will run)
  {"type": "image", "id", "mime", "data"}   (show_image; data in base64)
  {"type": "job_started", "job", "pid", "dir"}
  {"type": "job_ended", "job", "exit", "duration_ms", "wakes"}   (wakes: a job_wake follows)
  {"type": "job_wake", "job", "exit", "duration_ms"}   (nothing read its end)
  {"type": "done", "id", "status", "value"?, "error"?, "exception"?,
   "trace", "marked"}

A kernel's start is on the critical path of a session's first cell, so only
json and built-in modules are imported then; traceback, linecache and
asyncio are imported when a cell first needs them.
"""

import _signal
import _thread
import json
import os
import sys
from _ast import PyCF_ALLOW_TOP_LEVEL_AWAIT, PyCF_ONLY_AST, Expr, Expression
from _queue import SimpleQueue

CO_COROUTINE = 0x0080
CONTROL_OUT = 4


class HostError(RuntimeError):
    """A host call that albedo answered with an error."""


def host_function(call_host, spec):
    """The async function a cell calls for the host call spec declares:
    its arguments, by position or by name, go to albedo as a JSON object;
    optional ones left out are absent from it. A last parameter that
    collects keywords (**name) takes every keyword argument as a dict, and
    the others are then passed by position only."""
    name = spec["name"]
    parts = name.split(".") if isinstance(name, str) else ()
    if not 1 <= len(parts) <= 2 or not all(part.isidentifier() for part in parts):
        raise ValueError("a host call needs a Python name or group.name, not %r" % (name,))
    params = [(p["name"], bool(p.get("optional")), bool(p.get("keywords"))) for p in spec.get("params") or ()]
    keywords = params[-1][0] if params and params[-1][2] else None
    if keywords is not None:
        params = params[:-1]
    names = [param for param, _, _ in params]
    required = [param for param, optional, _ in params if not optional]

    async def call(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError("%s() takes %d positional arguments but %d were given" % (name, len(names), len(args)))
        bound = dict(zip(names, args))
        if keywords is not None:
            bound[keywords] = kwargs
            kwargs = {}
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError("%s() got an unexpected keyword argument %r" % (name, key))
            if key in bound:
                raise TypeError("%s() got multiple values for argument %r" % (name, key))
            bound[key] = value
        missing = [param for param in required if param not in bound]
        if missing:
            raise TypeError("%s() missing required argument(s): %s" % (name, ", ".join(missing)))
        return await call_host(name, bound)

    shown = [param + ("=None" if optional else "") for param, optional, _ in params]
    if keywords is not None:
        shown += ["/", "**" + keywords] if params else ["**" + keywords]
    call.__name__, call.__qualname__ = parts[-1], name
    call.__module__ = "__main__"
    call.__doc__ = "%s(%s)\n\n%s" % (name, ", ".join(shown), spec.get("doc") or "")
    return call


class HostGroup:
    """A group of albedo's host calls, each an async method of it."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        calls = sorted(key for key in vars(self) if not key.startswith("_"))
        return "<albedo host calls %s: %s>" % (self._name, ", ".join(calls))


class Kernel:
    """Serves the daemon's requests until the control pipe closes."""

    def __init__(self, control):
        self.control = control
        self.send_lock = _thread.allocate_lock()
        self.requests = SimpleQueue()
        self.calls = {}
        self.call_ids = iter(range(1, sys.maxsize))
        self.tracer = Tracer()
        self.sources = Sources()
        self.loop = None
        self.cells = 0
        self.workspace = os.getcwd()
        self.namespace = sys.modules["__main__"].__dict__
        self.stdout_id = None
        self.jobs = Jobs(self)
        self.cell_id = None
        self.shown = 0
        self.call_host = None  # set by install_helpers
        self.helper_names = ()
        self.offered = {}  # the host call globals, by name
        self.parent = os.getppid()  # the daemon

    # The channel to the daemon.

    def send(self, message):
        """Writes one frame to the daemon; a gone daemon ends the kernel."""
        body = json.dumps(message).encode("utf-8")
        data = memoryview(len(body).to_bytes(4, "big") + body)
        mask = getattr(_signal, "pthread_sigmask", None)
        with self.send_lock:
            # An interrupt half-way through a frame would corrupt the
            # channel: it is held back until the frame is out.
            if mask is not None:
                old = mask(_signal.SIG_BLOCK, {_signal.SIGINT})
            try:
                while data:
                    data = data[os.write(CONTROL_OUT, data):]
            except OSError:
                self.orphaned()
            finally:
                if mask is not None:
                    mask(_signal.SIG_SETMASK, old)

    def receive(self):
        """Reads one frame from the daemon; None at end of file."""
        head = self.control.read(4)
        if len(head) < 4:
            return None
        size = int.from_bytes(head, "big")
        body = self.control.read(size)
        if len(body) < size:
            return None
        return json.loads(body)

    def orphaned(self):
        """Ends the kernel and every process it started: the daemon is gone."""
        try:
            self.jobs.kill_all()
            if os.getpgrp() == os.getpid():
                os.killpg(os.getpid(), _signal.SIGKILL)
        finally:
            os._exit(0)

    def on_parent_death(self, signum, frame):
        """SIGHUP, which Linux sends when the daemon dies: the kernel and its
        jobs end at once, in the main thread, before the running cell takes
        another step. A SIGHUP while the daemon lives is ignored."""
        if os.getppid() != self.parent:
            self.orphaned()

    def read_requests(self):
        """The reader thread: queues cells and settles host calls."""
        if hasattr(_signal, "pthread_sigmask"):
            _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT})
        while True:
            try:
                message = self.receive()
            except Exception:
                message = None
            if message is None:
                self.orphaned()
            try:
                kind = message.get("type")
                if kind == "run":
                    self.requests.put(message)
                elif kind == "reply":
                    self.settle(message)
            except Exception:  # one bad request must not stop the reader
                pass

    def settle(self, message):
        """Hands a host call's reply to the coroutine awaiting it."""
        entry = self.calls.pop(message.get("id"), None)
        if entry is None:
            return
        loop, future = entry

        def resolve():
            if future.done():
                return
            if "error" in message:
                future.set_exception(HostError(message["error"]))
            else:
                future.set_result(message.get("result"))

        try:
            loop.call_soon_threadsafe(resolve)
        except RuntimeError:  # that loop is closed; nobody waits any more
            pass

    # Start.

    def serve(self):
        """Prepares the interpreter, says ready, and runs cells forever."""
        for name in ("sys", "_albedo_kernel"):  # left by the bootstrap
            self.namespace.pop(name, None)
        for fd in (3, CONTROL_OUT):
            os.set_inheritable(fd, False)
        st = os.fstat(1)
        self.stdout_id = (st.st_dev, st.st_ino)
        for stream in (sys.stdout, sys.stderr):
            try:
                if "PYTHONIOENCODING" in os.environ:
                    stream.reconfigure(line_buffering=True)
                else:
                    stream.reconfigure(line_buffering=True, encoding="utf-8", errors="backslashreplace")
            except Exception:
                pass
        _signal.signal(_signal.SIGINT, on_sigint)
        if hasattr(_signal, "SIGHUP"):
            _signal.signal(_signal.SIGHUP, self.on_parent_death)
        self.tracer.install()
        self.install_helpers()
        _thread.start_new_thread(self.read_requests, ())
        self.send(
            {
                "type": "ready",
                "pid": os.getpid(),
                "python": "%d.%d.%d" % sys.version_info[:3],
                "executable": sys.executable,
            }
        )
        # A cell sent just before the daemon died may be queued before the
        # reader sees the control pipe close; the daemon that comes next
        # counts that cell as interrupted, so it must never start here.
        while True:
            try:
                request = self.requests.get()
            except KeyboardInterrupt:
                continue
            if os.getppid() != self.parent:
                self.orphaned()
            try:
                done = self.run(request)
            except BaseException as failure:  # a fault of the kernel itself
                done = {
                    "type": "done",
                    "id": request.get("id"),
                    "status": "error",
                    "exception": type(failure).__name__,
                    "error": "the python kernel failed: %r" % (failure,),
                    "trace": {"activities": [], "changes": []},
                    "marked": False,
                }
            self.send(done)

    def install_helpers(self):
        """Puts the host call helpers into the session's globals."""
        kernel = self

        async def call_host(name, args):
            """Sends host call name with the dict args and awaits albedo's
            reply."""
            import asyncio

            try:
                json.dumps(args)
            except (TypeError, ValueError) as error:
                raise TypeError("host call %s: arguments must be JSON values: %s" % (name, error)) from None
            loop = asyncio.get_running_loop()
            future = loop.create_future()
            call_id = next(kernel.call_ids)
            kernel.calls[call_id] = (loop, future)
            try:
                kernel.send({"type": "call", "id": call_id, "name": name, "args": args})
                return await future
            finally:
                kernel.calls.pop(call_id, None)

        async def _host(name, **args):
            """Calls albedo's host function name with args and returns its
            JSON result; raises HostError with albedo's message on failure."""
            return await call_host(name, args)

        kernel.call_host = call_host

        def run(cmd, *, cwd=None, env=None, timeout=None):
            """Starts cmd in the background and returns its Job at once.

            cmd is a string for the shell or a list of arguments; it runs in
            cwd (the workspace by default) with env added to the kernel's
            environment, in a process group of its own, and is stopped after
            timeout seconds if given. Its output goes to a bounded spool:
            job.tail(n) shows its last lines. await job (or job.wait())
            returns its exit code; job.stop() ends its whole process group.
            When it ends and nothing read its end, albedo tells the model.
            """
            return kernel.jobs.run(cmd, cwd=cwd, env=env, timeout=timeout)

        def jobs():
            """The background jobs started by run(), by id."""
            return dict(kernel.jobs.jobs)

        def show_image(image, mime=None):
            """Shows an image to the model with this cell's result.

            image is a path or the image's bytes: a PNG, JPEG, GIF or WebP
            image of at most 20 MiB; mime, if given, must match it. A cell
            shows at most 4 images, and one that fails shows none.
            """
            data, kind = read_image(image, mime)
            if kernel.cell_id is None:
                raise RuntimeError("show_image() works only while a cell runs")
            if kernel.shown >= IMAGES_MAX:
                raise ValueError("a cell shows at most %d images; this would be image %d" % (IMAGES_MAX, kernel.shown + 1))
            kernel.shown += 1
            encoded = stdlib("binascii").b2a_base64(data, newline=False).decode("ascii")
            kernel.send({"type": "image", "id": kernel.cell_id, "mime": kind, "data": encoded})

        helpers = {
            "_host": _host,
            "HostError": HostError,
            "run": run,
            "jobs": jobs,
            "show_image": show_image,
        }
        for helper in helpers.values():
            # Shown as the cell's own names, in reprs, help() and tracebacks.
            helper.__qualname__ = helper.__name__
            helper.__module__ = "builtins" if helper is HostError else "__main__"
        self.namespace.update(helpers)
        self.helper_names = tuple(helpers)

    def offer_host_calls(self, specs):
        """Makes each host call the daemon declares an async global of the
        session, or a method of a HostGroup global for a dotted name, in
        place of those it declared before. The kernel's own helpers keep
        their names; a declaration that cannot be a Python function, or
        whose name another declaration takes as a group or a function, is
        skipped (the daemon checks them)."""
        for name, function in self.offered.items():
            if self.namespace.get(name) is function:
                del self.namespace[name]
        self.offered = {}
        for spec in specs or ():
            try:
                function = host_function(self.call_host, spec)
            except Exception:
                continue
            group, _, call = function.__qualname__.partition(".")
            if group in self.helper_names:
                continue
            if not call:
                self.offered.setdefault(group, function)
                continue
            offered = self.offered.setdefault(group, HostGroup(group))
            if isinstance(offered, HostGroup):
                setattr(offered, call, function)
        self.namespace.update(self.offered)

    # Cells.

    def run(self, request):
        """Runs one cell and returns its done event."""
        self.send({"type": "started", "id": request.get("id")})
        if "host_calls" in request:
            self.offer_host_calls(request["host_calls"])
        limit = int(request.get("limit") or 0)
        done = {"type": "done", "id": request.get("id"), "status": "ok"}
        workspace = request.get("cwd")
        error = None
        if workspace and workspace != self.workspace:
            try:
                os.chdir(workspace)
                self.workspace = workspace
            except OSError as failure:
                error = "cannot enter the workspace %s: %s" % (workspace, failure.strerror)
        self.cell_id, self.shown = request.get("id"), 0
        self.jobs.cell_begins()
        if error is None:
            self.cells += 1
            filename = "%s%d>" % (CELL_PREFIX, self.cells)
            code = request.get("code") or ""
            self.sources.remember(filename, code)
            self.tracer.start()
            try:
                value, failure = guarded(lambda: self.execute(code, filename, limit))
            finally:
                done["trace"] = self.tracer.stop()
            if failure is not None:
                done["exception"] = type(failure).__name__
                self.sources.publish(stdlib("linecache"))
                error = clip(format_error(failure), limit)
            elif value is not None:
                done["value"] = value
        else:
            done["trace"] = {"activities": [], "changes": []}
        if error is not None:
            done["status"] = "error"
            done["error"] = error
        done["marked"] = self.mark(request.get("marker"))
        self.cell_id = None
        self.jobs.cell_ends()
        return done

    def execute(self, code, filename, limit):
        """Runs code in the session's globals and returns the repr of its
        final expression, if that is not None."""
        flags = PyCF_ALLOW_TOP_LEVEL_AWAIT
        tree = compile(code, filename, "exec", PyCF_ONLY_AST | flags, dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], Expr):
            last = Expression(tree.body.pop().value)
        self.evaluate(compile(tree, filename, "exec", flags, dont_inherit=True))
        if last is None:
            return None
        value = self.evaluate(compile(last, filename, "eval", flags, dont_inherit=True))
        if value is None:
            return None
        return clip(repr(value), limit)

    def evaluate(self, code):
        """Runs compiled cell code, on the event loop when it awaits."""
        if not code.co_flags & CO_COROUTINE:
            return eval(code, self.namespace)
        loop = self.event_loop()
        task = loop.create_task(eval(code, self.namespace))
        try:
            return loop.run_until_complete(task)
        except KeyboardInterrupt:
            if task.done():
                if not task.cancelled():
                    task.exception()  # retrieved: asyncio must not log it later
                raise
            # The interrupt came while the loop waited: cancel the cell so it
            # cannot resume during a later cell, and report where it stood.
            task.cancel()
            try:
                loop.run_until_complete(task)
            except BaseException as cancelled:
                raise KeyboardInterrupt().with_traceback(cell_traceback(cancelled)) from None
            raise

    def event_loop(self):
        """The session's event loop, made on first use."""
        if self.loop is None:
            asyncio = stdlib("asyncio")
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
        return self.loop

    def mark(self, marker):
        """Flushes the cell's output and ends it with marker on fd 1, unless
        the cell moved fd 1 elsewhere; reports whether it wrote the marker."""
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except Exception:
                pass
        if not marker:
            return False
        try:
            st = os.fstat(1)
            if (st.st_dev, st.st_ino) != self.stdout_id:
                return False
            data = marker.encode("ascii")
            while data:
                data = data[os.write(1, data):]
            return True
        except OSError:
            return False


def serve(control):
    """Runs the kernel on the control reader the bootstrap opened."""
    Kernel(control).serve()
