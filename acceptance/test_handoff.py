"""The crash hand-off: a CLI command run right after `kill -9` of the daemon,
while a turn runs, reaches a new daemon.

A read (`albedo sessions`) must succeed every time. A write
(`albedo run --session`) must be delivered exactly once, or else fail with
the message docs/console.md documents, having delivered it at most once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import unittest

from harness import Albedo, Provider, binary, text, wait_gone, wait_until

TRIES = 100

STALL = 0.2
"""How long the fake provider holds every model request: a kill that comes
while it holds one comes during a turn."""

UNKNOWN = "the daemon stopped while it was taking the prompt, so albedo cannot know whether session"
"""The start of the message `albedo run` fails with when its write may or
may not have landed (docs/console.md: "When the daemon dies under a command")."""


class Held:
    """A model that holds every request STALL seconds, then answers."""

    def __call__(self, request):
        time.sleep(STALL)
        return text("ok")


class CrashHandOffTest(unittest.TestCase):
    def run_cli(self, app, *args):
        return subprocess.run(
            [str(binary()), *args],
            cwd=app.workspace,
            env=app.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )

    def kill_during_a_turn(self, app, provider, session, prompt):
        """Sends prompt, waits until the provider holds a request of the
        session's turn, and kills the daemon with SIGKILL (not waiting for it
        to be gone)."""
        before = len(provider.requests)
        app.prompt(session, prompt).close()
        self.assertTrue(wait_until(lambda: len(provider.requests) > before, interval=0.005), "the turn never asked the model")
        pid = app.connection["pid"]
        os.kill(pid, signal.SIGKILL)
        return pid

    def reconnect(self, app, old):
        """Points the fixture at the daemon that now serves the home."""
        self.assertTrue(wait_gone(old, 10), f"daemon {old} survived SIGKILL")
        app.connection = app._read_connection(not_pid=old)

    def test_a_read_right_after_kill_reaches_a_new_daemon(self):
        provider = Provider(Held())
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            for attempt in range(TRIES):
                old = self.kill_during_a_turn(app, provider, session, f"work {attempt}")
                result = self.run_cli(app, "sessions", "--json")
                self.assertEqual(
                    result.returncode, 0,
                    f"attempt {attempt}: albedo sessions failed: {result.stderr}\n--- daemon.log ---\n{app._log_tail()}",
                )
                self.assertIn(session, [s["id"] for s in json.loads(result.stdout)], f"attempt {attempt}")
                self.reconnect(app, old)

    def test_a_write_right_after_kill_lands_once_or_says_it_cannot_know(self):
        provider = Provider(Held())
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            unknown = 0
            for attempt in range(TRIES):
                old = self.kill_during_a_turn(app, provider, session, f"work {attempt}")
                message = f"follow-up {attempt}"
                result = self.run_cli(app, "run", "--session", session, message)
                self.reconnect(app, old)
                app.idle(session)
                delivered = [e for e in app.events(session) if e.get("type") == "user" and e.get("text") == message]
                if result.returncode == 0:
                    self.assertEqual(len(delivered), 1, f"attempt {attempt}: albedo run succeeded; the message must land exactly once")
                    continue
                unknown += 1
                self.assertIn(
                    UNKNOWN, result.stderr,
                    f"attempt {attempt}: albedo run failed without the documented message: {result.stderr}\n--- daemon.log ---\n{app._log_tail()}",
                )
                self.assertLessEqual(len(delivered), 1, f"attempt {attempt}: a write must never land twice")
            self.assertLess(unknown, TRIES, "no write ever got through")


if __name__ == "__main__":
    unittest.main()
