"""Background jobs and images for the cells of albedo's Python kernel.

run(cmd) starts a command in a process group of its own and returns a Job
at once. Its output goes to a bounded spool: two files of JOB_SPOOL_MAX/2
bytes each, written in turn, so the last lines are always at hand. Its end
is reported to the daemon; when nothing read it (await job, job.wait(),
job.exit_code, job.stop()), the daemon wakes the session.

show_image(image) sends an image the cell shows to the daemon, which gives
it to the model with the cell's result.
"""

import os
import sys
import _signal
import _thread

# A job's spool keeps at most this many bytes of its output.
JOB_SPOOL_MAX = 1 << 20
# A job's end waits this long for its last output to reach the spool.
DRAIN_GRACE = 1.0
# stop() gives a job this long to end after SIGTERM before SIGKILL.
STOP_GRACE = 2.0
# Where the jobs' spools go: set by the daemon, which removes the folder
# when the kernel exits; albedo-jobs-PID in TMPDIR when unset.
JOBS_FOLDER = None
# show_image takes images of at most IMAGE_MAX bytes, IMAGES_MAX per cell.
IMAGE_MAX = 20 << 20
IMAGES_MAX = 4


def _quiet_thread():
    """Keeps the daemon's SIGINT for the main thread."""
    if hasattr(_signal, "pthread_sigmask"):
        _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT})


class Job:
    """A command running in the background; see run()."""

    def __init__(self, jobs, number, command, proc, spool, timeout, began):
        self._jobs = jobs
        self.id = number
        self.pid = proc.pid
        self.command = command
        self._proc = proc
        self._spool = spool
        self._began = began
        self._ended = None
        self._code = None
        self._read = False
        self._awaiting = 0
        self._waiters = []
        self._lock = _thread.allocate_lock()
        self._done = sys.modules["threading"].Event()
        self._drained = sys.modules["threading"].Event()
        self._timeout = timeout

    def __repr__(self):
        state = "running" if self.running else "exit %s after %.1f s" % (self._code, self.duration_ms / 1000)
        return "<job %d pid %d %s: %s>" % (self.id, self.pid, state, self.command)

    @property
    def running(self):
        """True until the job's process has ended."""
        return not self._done.is_set()

    @property
    def exit_code(self):
        """The exit status once the job ended (minus the signal's number
        when a signal ended it), None while it runs."""
        if not self._done.is_set():
            return None
        self._read = True
        return self._code

    @property
    def duration_ms(self):
        """How long the job ran, or has run so far, in milliseconds."""
        end = self._ended if self._ended is not None else stdlib("time").monotonic()
        return int((end - self._began) * 1000)

    def tail(self, n=50):
        """The last n lines of the job's output (stdout and stderr)."""
        data = self._spool.read()
        lines = data.decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-n:] if n > 0 else [])

    def wait(self, timeout=None):
        """Waits for the job to end and returns its exit code; None when
        timeout seconds passed first."""
        if not self._done.wait(timeout):
            return None
        self._read = True
        return self._code

    def __await__(self):
        return self._wait_async().__await__()

    async def _wait_async(self):
        asyncio = stdlib("asyncio")
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._done.is_set():
                self._read = True
                return self._code
            future = loop.create_future()
            self._waiters.append((loop, future))
            self._awaiting += 1
        try:
            await future
        finally:
            with self._lock:
                self._awaiting -= 1
        self._read = True
        return self._code

    def stop(self):
        """Ends the job's whole process group: SIGTERM, then SIGKILL after
        2 s; returns the exit code."""
        if not self._done.is_set():
            self._signal(_signal.SIGTERM)
            self._done.wait(STOP_GRACE)
        self._signal(_signal.SIGKILL)  # what is left of the group
        self._done.wait()
        self._read = True
        return self._code

    def _signal(self, signum):
        try:
            os.killpg(self.pid, signum)
        except OSError:
            pass

    # Threads.

    def _pump(self):
        """Copies the job's output to its spool until the pipe closes."""
        _quiet_thread()
        fd = self._proc.stdout.fileno()
        try:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except InterruptedError:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                self._spool.write(chunk)
        finally:
            self._proc.stdout.close()
            self._drained.set()

    def _watch(self):
        """Waits for the job's process, stopping it at its timeout, and
        reports its end."""
        _quiet_thread()
        subprocess = stdlib("subprocess")
        try:
            self._proc.wait(self._timeout)
        except subprocess.TimeoutExpired:
            self._signal(_signal.SIGTERM)
            try:
                self._proc.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                self._signal(_signal.SIGKILL)
                self._proc.wait()
        # Its last output is in the spool before its end is: tail() right
        # after the end shows it. A child that keeps the pipe open is not
        # waited for long.
        self._drained.wait(DRAIN_GRACE)
        with self._lock:
            self._ended = stdlib("time").monotonic()
            self._code = self._proc.returncode
            if self._awaiting:
                self._read = True
        # The end is reported before any cell can see the job done, so a
        # cell that awaited its jobs sends their ends before its own done,
        # never after it.
        self._jobs.ended(self)
        with self._lock:
            if self._awaiting:
                self._read = True
            waiters, self._waiters = self._waiters, []
            self._done.set()
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(_settle, future)
            except RuntimeError:  # that loop is closed
                pass


def _settle(future):
    if not future.done():
        future.set_result(None)


class Spool:
    """A bounded record of a job's output: two files written in turn."""

    def __init__(self, folder):
        self.paths = (os.path.join(folder, "out.0"), os.path.join(folder, "out.1"))
        self.current = 0
        self.size = 0
        self.lock = _thread.allocate_lock()
        self.file = open(self.paths[0], "wb", buffering=0)

    def write(self, chunk):
        with self.lock:
            if self.size + len(chunk) > JOB_SPOOL_MAX // 2 and self.size > 0:
                self.file.close()
                self.current ^= 1
                self.file = open(self.paths[self.current], "wb", buffering=0)
                self.size = 0
            self.file.write(chunk)
            self.size += len(chunk)

    def read(self):
        with self.lock:
            data = b""
            for index in (self.current ^ 1, self.current):
                try:
                    with open(self.paths[index], "rb") as f:
                        data += f.read()
                except OSError:
                    pass
            return data


class Jobs:
    """The background jobs of the kernel, and the reports of their ends."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.jobs = {}
        self.numbers = iter(range(1, sys.maxsize))
        self.folder = None
        self.lock = _thread.allocate_lock()
        self.in_cell = False
        self.ended_in_cell = []

    def run(self, cmd, cwd=None, env=None, timeout=None):
        subprocess = stdlib("subprocess")
        if isinstance(cmd, str):
            shell, command = True, cmd
        elif isinstance(cmd, (list, tuple)) and cmd and all(isinstance(a, (str, bytes, os.PathLike)) for a in cmd):
            shell, command = False, " ".join(os.fsdecode(a) for a in cmd)
            cmd = list(cmd)
        else:
            raise TypeError("run() takes a command string for the shell or a non-empty list of arguments")
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        environ = None
        if env is not None:
            environ = dict(os.environ)
            environ.update({str(k): str(v) for k, v in env.items()})
        number = next(self.numbers)
        folder = os.path.join(self.spool_folder(), str(number))
        os.mkdir(folder, 0o700)
        spool = Spool(folder)
        stdlib("threading")  # Job needs it; imported before the clock starts
        began = stdlib("time").monotonic()
        proc = subprocess.Popen(
            cmd,
            shell=shell,
            cwd=cwd,
            env=environ,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        job = Job(self, number, command, proc, spool, timeout, began)
        self.jobs[number] = job
        self.kernel.send({"type": "job_started", "job": number, "pid": proc.pid, "dir": self.folder})
        _thread.start_new_thread(job._pump, ())
        _thread.start_new_thread(job._watch, ())
        return job

    def spool_folder(self):
        if self.folder is None:
            folder = JOBS_FOLDER
            if folder is None:
                base = os.environ.get("TMPDIR") or "/tmp"
                folder = os.path.join(base, "albedo-jobs-%d" % os.getpid())
            # The spools are the kernel's own files, not the cells': the
            # folder is left out of the trace before it is made.
            self.kernel.tracer.roots += (os.path.normpath(folder),)
            os.makedirs(folder, 0o700, exist_ok=True)
            self.folder = folder
        return self.folder

    def ended(self, job):
        """Reports a job's end; its wake waits for the end of a running cell,
        which may read it. The end says whether a wake follows at once, so
        that the daemon keeps counting the job until the wake is taken:
        between the two frames the kernel must not look idle to the daemon's
        reaper, which would stop it and lose the globals the woken session
        relies on."""
        with self.lock:
            deferred = self.in_cell
            if deferred:
                self.ended_in_cell.append(job)
        wakes = not deferred and not job._read
        self.kernel.send({"type": "job_ended", "job": job.id, "exit": job._code, "duration_ms": job.duration_ms, "wakes": wakes})
        if wakes:
            self.send_wake(job)

    def wake(self, job):
        if not job._read:
            self.send_wake(job)

    def send_wake(self, job):
        self.kernel.send({"type": "job_wake", "job": job.id, "exit": job._code, "duration_ms": job.duration_ms})

    def cell_begins(self):
        with self.lock:
            self.in_cell = True

    def cell_ends(self):
        with self.lock:
            self.in_cell = False
            ended, self.ended_in_cell = self.ended_in_cell, []
        for job in ended:
            self.wake(job)

    def kill_all(self):
        """Kills every job's process group: the kernel is going away."""
        for job in list(self.jobs.values()):
            try:
                os.killpg(job.pid, _signal.SIGKILL)
            except OSError:
                pass


def _image_kind(data):
    """The MIME type of PNG, JPEG, GIF or WebP data, or None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return "image/png"
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return "image/gif"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and data[12:16] in (b"VP8 ", b"VP8L", b"VP8X"):
        return "image/webp"
    return None


def read_image(image, mime):
    """The bytes and MIME type of what show_image was given, checked."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        data, what = bytes(image), "the image"
    elif isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        what = path
        with open(path, "rb") as f:
            data = f.read(IMAGE_MAX + 1)
    else:
        raise TypeError("show_image() takes a path or the image's bytes, not %s" % type(image).__name__)
    if len(data) > IMAGE_MAX:
        raise ValueError("%s is larger than 20 MiB; show_image takes at most %d bytes" % (what, IMAGE_MAX))
    kind = _image_kind(data)
    if kind is None:
        raise ValueError("%s is not a PNG, JPEG, GIF or WebP image" % what)
    if mime is not None and mime != kind:
        raise ValueError("%s is %s, not %s" % (what, kind, mime))
    return data, kind
