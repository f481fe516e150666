"""File tracing for albedo's Python kernel.

A cell's trace lists the files it opened for reading or writing
(activities) and the paths it created, modified or deleted (changes). The
audit hook sees every open() and os-level file operation of the process;
paths are made absolute against the working directory at the time of the
call, and the kernel's own files and the Python installation are skipped.
"""

import os
import sys

# A trace keeps at most TRACE_MAX activities and TRACE_MAX changes; at most
# TRACKED_MAX paths are compared before and after a cell.
TRACE_MAX = 200
TRACKED_MAX = 1000

# An installation prefix is skipped as a whole unless it is one of these
# shared system prefixes; their standard library and site-packages folders
# are skipped individually instead.
SHARED_PREFIXES = ("/", "/usr", "/usr/local", "/opt/homebrew", "/opt/local")
# A path with one of these components is never traced.
SKIPPED_PARTS = ("__pycache__", "site-packages", "dist-packages")


class Tracer:
    """Records the files cells open, create, change and delete.

    It is fed by an audit hook that stays installed for the kernel's life
    but does nothing unless a cell is running.
    """

    def __init__(self):
        self.on = False
        self.roots = self._excluded_roots()
        self.activities = {}
        self.before = {}
        self.truncated = set()

    @staticmethod
    def _excluded_roots():
        """The folders whose files are never traced: see SHARED_PREFIXES."""
        roots = {"/proc", "/dev", "/sys"}
        roots.add(os.path.dirname(os.__file__))
        for entry in sys.path:
            if entry.endswith((".zip", "lib-dynload")) or any(part in entry for part in SKIPPED_PARTS):
                roots.add(entry)
        for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix):
            if prefix and os.path.normpath(prefix) not in SHARED_PREFIXES:
                roots.add(prefix)
        try:
            import site

            roots.update(site.getsitepackages())
            roots.add(site.getusersitepackages())
        except Exception:
            pass
        return tuple(sorted({os.path.normpath(r) for r in roots if r and os.path.isabs(r)}))

    def start(self):
        """Begins tracing a cell."""
        self.activities = {}
        self.before = {}
        self.truncated = set()
        self.on = True

    def stop(self):
        """Ends tracing and returns the cell's trace."""
        self.on = False
        changes = []
        for path, old in self.before.items():
            new = _snapshot(path)
            kind = None
            if old is None and new is not None:
                kind = "created"
            elif old is not None and new is None:
                kind = "deleted"
            elif old is not None and not old[3] and not new[3]:
                if old != new or path in self.truncated:
                    kind = "modified"
            if kind is not None:
                changes.append({"path": path, "kind": kind})
                if len(changes) >= TRACE_MAX:
                    break
        activities = [{"kind": kind, "target": target} for kind, target in self.activities]
        self.activities = {}
        self.before = {}
        self.truncated = set()
        return {"activities": activities, "changes": changes}

    def install(self):
        """Installs the audit hook, once for the kernel's life."""
        handlers = {
            "open": self._open,
            "os.remove": self._removed,
            "os.rmdir": self._removed,
            "os.mkdir": self._made,
            "os.rename": self._renamed,
            "os.link": self._linked,
            "os.symlink": self._linked,
            "os.truncate": self._truncate,
        }
        tracer = self

        def hook(event, args):
            if not tracer.on:
                return
            handler = handlers.get(event)
            if handler is None:
                return
            try:
                handler(args)
            except Exception:
                pass

        sys.addaudithook(hook)

    # Audit event handlers. Each gets the event's arguments tuple.

    def _open(self, args):
        path, mode, flags = args
        path = self._resolve(path)
        if path is None:
            return
        if flags is None:
            flags = _flags_of(mode or "r")
        access = flags & os.O_ACCMODE
        state = _snapshot(path)
        if state is not None and state[3]:
            return
        if access in (os.O_RDONLY, os.O_RDWR) and state is not None and not flags & os.O_TRUNC:
            self._activity("read", path)
        if access in (os.O_WRONLY, os.O_RDWR):
            self._activity("write", path)
            self._track(path, state)
            if flags & os.O_TRUNC:
                self.truncated.add(path)

    def _removed(self, args):
        path = self._resolve(args[0], args[1])
        if path is not None:
            self._activity("write", path)
            self._track(path, _snapshot(path))

    def _made(self, args):
        path = self._resolve(args[0], args[2])
        if path is not None:
            self._track(path, _snapshot(path))

    def _renamed(self, args):
        for path, dir_fd in ((args[0], args[2]), (args[1], args[3])):
            path = self._resolve(path, dir_fd)
            if path is not None:
                self._activity("write", path)
                self._track(path, _snapshot(path))

    def _linked(self, args):
        dir_fd = args[-1] if len(args) > 2 else None
        path = self._resolve(args[1], dir_fd)
        if path is not None:
            self._activity("write", path)
            self._track(path, _snapshot(path))

    def _truncate(self, args):
        path = self._resolve(args[0])
        if path is not None:
            self._activity("write", path)
            self._track(path, _snapshot(path))
            self.truncated.add(path)

    def _resolve(self, path, dir_fd=None):
        """The absolute, normalised path an event names, or None to skip it."""
        if path is None or isinstance(path, int):
            return None
        if not isinstance(path, (str, bytes)):
            path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not os.path.isabs(path):
            if isinstance(dir_fd, int) and dir_fd >= 0:
                base = os.readlink("/proc/self/fd/%d" % dir_fd)
            else:
                base = os.getcwd()
            path = os.path.join(base, path)
        path = os.path.normpath(path)
        for root in self.roots:
            if path == root or path.startswith(root + os.sep):
                return None
        parts = path.split(os.sep)
        for part in SKIPPED_PARTS:
            if part in parts:
                return None
        return path

    def _activity(self, kind, path):
        key = (kind, path)
        if key not in self.activities and len(self.activities) < TRACE_MAX:
            self.activities[key] = None

    def _track(self, path, state):
        if path not in self.before and len(self.before) < TRACKED_MAX:
            self.before[path] = state


def _snapshot(path):
    """What a change is judged by: (mtime_ns, size, inode, is_dir), or None."""
    try:
        st = os.stat(path)
    except OSError:
        try:
            st = os.lstat(path)
        except OSError:
            return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, (st.st_mode & 0o170000) == 0o040000)


def _flags_of(mode):
    """The os.open flags matching an open() mode string."""
    if "+" in mode:
        flags = os.O_RDWR
    elif "r" in mode:
        flags = os.O_RDONLY
    else:
        flags = os.O_WRONLY
    if "w" in mode:
        flags |= os.O_CREAT | os.O_TRUNC
    if "a" in mode:
        flags |= os.O_CREAT | os.O_APPEND
    if "x" in mode:
        flags |= os.O_CREAT | os.O_EXCL
    return flags

