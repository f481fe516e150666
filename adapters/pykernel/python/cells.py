"""Interrupts and error reports for the cells of albedo's Python kernel.

The daemon interrupts a cell with SIGINT. The handler raises
KeyboardInterrupt only while a cell's own code runs, and only once per cell,
so the kernel's bookkeeping between cells is never cut short.
"""

import os
import sys

# Frames of the kernel are compiled under names starting with KERNEL_PREFIX
# and cells under names starting with CELL_PREFIX.
KERNEL_PREFIX = "<albedo-kernel"
CELL_PREFIX = "<cell "

_armed = False


def on_sigint(signum, frame):
    """Turns the daemon's interrupt into KeyboardInterrupt, once per cell."""
    global _armed
    if _armed:
        _armed = False
        raise KeyboardInterrupt


def guarded(run):
    """Calls run() with interrupts armed; returns (result, exception)."""
    global _armed
    try:
        try:
            _armed = True
            result = run()
            _armed = False
            return result, None
        except BaseException as error:
            _armed = False
            return None, error
    except KeyboardInterrupt as error:  # arrived during the bookkeeping above
        _armed = False
        return None, error


def clip(text, limit):
    """Keeps the head and tail of text within limit, marking what was cut."""
    if limit <= 0 or len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    cut = len(text) - head - tail
    return "%s\n[... %d characters cut ...]\n%s" % (text[:head], cut, text[len(text) - tail:])


def stdlib(name):
    """Imports a standard module, never a workspace file of the same name."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    saved = sys.path[:]
    cwd = os.getcwd()
    sys.path[:] = [p for p in saved if p and os.path.abspath(p) != cwd]
    try:
        __import__(name)
    finally:
        sys.path[:] = saved
    return sys.modules[name]


class Sources:
    """Keeps the cells' code for tracebacks, which read it through linecache.

    linecache is not imported for the kernel's start; the code waits here
    until linecache is loaded, by the kernel's first error or by the cells.
    """

    def __init__(self):
        self.waiting = {}

    def remember(self, filename, code):
        self.waiting[filename] = (len(code), None, code.splitlines(True), filename)
        self.publish(sys.modules.get("linecache"))

    def publish(self, linecache):
        if linecache is not None and self.waiting:
            linecache.cache.update(self.waiting)
            self.waiting.clear()


def format_error(error):
    """The traceback of error as the cell sees it: from its first cell frame
    on, without the kernel's own frames."""
    traceback = stdlib("traceback")
    try:
        summary = traceback.TracebackException(type(error), error, error.__traceback__)
        _prune(summary, set())
        return "".join(summary.format())
    except Exception:
        return "".join(traceback.format_exception_only(type(error), error))


def cell_traceback(error):
    """The first traceback in error's context chain that reaches a cell."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        tb = error.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.startswith(CELL_PREFIX):
                return error.__traceback__
            tb = tb.tb_next
        error = error.__context__
    return None


def _prune(summary, seen):
    traceback = sys.modules["traceback"]
    if summary is None or id(summary) in seen:
        return
    seen.add(id(summary))
    frames = list(summary.stack)
    first = next((i for i, f in enumerate(frames) if f.filename.startswith(CELL_PREFIX)), len(frames))
    frames = [f for f in frames[first:] if not f.filename.startswith(KERNEL_PREFIX)]
    summary.stack = traceback.StackSummary.from_list(frames)
    _prune(summary.__cause__, seen)
    _prune(summary.__context__, seen)
    for nested in getattr(summary, "exceptions", None) or ():
        _prune(nested, seen)
