"""A terminal for the acceptance tests: a program in a private tmux server,
read with capture-pane and driven with send-keys, like a person would."""

import os
import subprocess
import tempfile
import time
import uuid

DEADLINE = 60
"""Seconds any one wait may take before the test gives up."""


class Terminal:
    """A program running in a private tmux server, 120×40, in the app's
    workspace and with the environment the harness runs the CLI with."""

    def __init__(self, app, *argv):
        self.app = app
        # Outside the app's folder: a test's cleanups run after the app is
        # gone, and tmux cannot be told to stop through a deleted socket.
        self.socket = os.path.join(tempfile.gettempdir(), f"albedo-tmux-{uuid.uuid4().hex[:12]}.sock")
        self._tmux(
            "new-session", "-d", "-x", "120", "-y", "40", "-c", str(app.workspace),
            *map(str, argv),
        )

    def _tmux(self, *args, check=True):
        result = subprocess.run(
            ["tmux", "-u", "-f", "/dev/null", "-S", self.socket, *args],
            env=self.app.env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {result.stderr}")
        return result

    def screen(self, colours=False) -> str:
        """What the terminal shows now; with colours, with the escape
        sequences that set each cell's attributes and colours."""
        result = self._tmux("capture-pane", "-p", *(["-e"] if colours else []), check=False)
        return result.stdout if result.returncode == 0 else ""

    def running(self) -> bool:
        """Whether the program is still there."""
        return self._tmux("has-session", check=False).returncode == 0

    def wait_for(self, *needles, absent=(), deadline=DEADLINE) -> str:
        """Polls until the screen shows every needle and none of absent."""
        end = time.monotonic() + deadline
        while True:
            screen = self.screen()
            if all(n in screen for n in needles) and not any(a in screen for a in absent):
                return screen
            if time.monotonic() > end:
                raise AssertionError(
                    f"the terminal never showed {needles!r} (without {absent!r}); it shows:\n{screen}"
                )
            time.sleep(0.1)

    def wait_gone(self, deadline=DEADLINE):
        """Polls until the program has exited."""
        end = time.monotonic() + deadline
        while self.running():
            if time.monotonic() > end:
                raise AssertionError(f"the program did not exit; it shows:\n{self.screen()}")
            time.sleep(0.1)

    def type(self, text):
        """Types text literally."""
        self._tmux("send-keys", "-l", text)

    def keys(self, *keys):
        """Presses keys by tmux name (Enter, Escape, C-d, ...)."""
        self._tmux("send-keys", *keys)

    def paste(self, text):
        """Pastes text as a terminal does: bracketed, when the program
        asked for that."""
        self._tmux("set-buffer", "--", text)
        self._tmux("paste-buffer", "-p", "-d")

    def say(self, text):
        """Types a line and presses Enter."""
        self.type(text)
        self.keys("Enter")

    def close(self):
        """Stops the tmux server and the program in it."""
        self._tmux("kill-server", check=False)
        try:
            os.unlink(self.socket)
        except FileNotFoundError:
            pass
