"""The store failing for real under a running daemon: another program
holding albedo.sqlite's write lock, and a full disk under ALBEDO_HOME.

Each failure must answer 503 with code store_unavailable, a message naming
the cause and Retry-After; what was committed stays; a turn whose end cannot
be recorded does not leave its session running; and once the cause is gone
the session goes on."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import threading
import unittest
import urllib.error
from pathlib import Path

from harness import Albedo, Provider, read, text, turn

LOCKED = "albedo.sqlite is locked by another program"
FULL = "the disk holding ALBEDO_HOME is full"


def hold_write_lock(home: Path) -> sqlite3.Connection:
    """Takes albedo.sqlite's write lock the way another program would, and
    keeps it until the connection is rolled back."""
    db = sqlite3.connect(home / "albedo.sqlite", timeout=30, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    return db


class StoreFailureTest(unittest.TestCase):
    def setUp(self):
        self.gate = None  # when set, the next model request waits for it
        self.asked = threading.Event()

        def script(request):
            gate = self.gate
            if gate is not None:
                self.gate = None
                self.asked.set()
                gate.wait(60)
            return text("answered")

        self.provider = Provider(script)
        self.addCleanup(self.provider.close)

    def refused(self, app, path, body, cause):
        """Sends body to path and asserts the documented store failure."""
        with self.assertRaises(urllib.error.HTTPError) as caught:
            app.api(path, body).close()
        error = caught.exception
        answer = json.load(error)
        self.assertEqual(error.code, 503, answer)
        self.assertEqual(answer.get("code"), "store_unavailable", answer)
        self.assertIn(cause, answer.get("error", ""))
        self.assertTrue(error.headers.get("Retry-After", "").isdigit(), dict(error.headers))

    def texts(self, app, session):
        return [(e["type"], e.get("text")) for e in app.events(session) if e["type"] in ("user", "message")]

    def test_a_write_lock_held_by_another_program(self):
        with Albedo(self.provider) as app:
            session = app.session()
            turn(app, session, "first")
            committed = self.texts(app, session)
            self.assertEqual(committed, [("user", "first"), ("message", "answered")])

            db = hold_write_lock(app.home)
            try:
                self.refused(app, f"/sessions/{session}/events", {"content": "refused while locked"}, LOCKED)
                self.refused(app, "/sessions", {"workspace": str(app.workspace)}, LOCKED)
                self.assertFalse(read(app, f"/sessions/{session}/status")["running"])
                self.assertEqual(self.texts(app, session), committed)
            finally:
                db.rollback()
                db.close()

            turn(app, session, "after the lock")
            self.assertEqual(
                self.texts(app, session),
                committed + [("user", "after the lock"), ("message", "answered")],
            )

    def test_a_turn_whose_end_cannot_be_recorded_is_not_left_running(self):
        with Albedo(self.provider) as app:
            session = app.session()
            turn(app, session, "first")
            gate = threading.Event()
            self.gate = gate
            app.prompt(session, "second").close()
            self.assertTrue(self.asked.wait(30), "the model was never asked")
            live = []
            stream = app.api(f"/sessions/{session}/stream?after=0")

            def read_live():
                for line in stream:
                    if line.startswith(b"data: "):
                        live.extend(json.loads(line[6:]).get("events", []))

            reader = threading.Thread(target=read_live, daemon=True)
            reader.start()
            self.addCleanup(stream.close)
            db = hold_write_lock(app.home)
            try:
                gate.set()  # the model answers; its reply cannot be stored
                app.idle(session, timeout=60)
                self.refused(app, f"/sessions/{session}/events", {"content": "refused while locked"}, LOCKED)
                self.assertFalse(read(app, f"/sessions/{session}/status")["running"])
            finally:
                db.rollback()
                db.close()

            turn(app, session, "third")
            seen = self.texts(app, session)
            self.assertEqual(seen[:3], [("user", "first"), ("message", "answered"), ("user", "second")])
            self.assertEqual(seen[-2:], [("user", "third"), ("message", "answered")])
            self.assertNotIn(("user", "refused while locked"), seen)
            # Subscribers saw why live, and the history says it too now.
            self.assertTrue(any(e["type"] == "error" and LOCKED in e.get("text", "") for e in live), live)
            errors = [e.get("text", "") for e in app.events(session) if e["type"] == "error"]
            self.assertTrue(any(LOCKED in e and "could not record the end of this turn" in e for e in errors), errors)
            # The store agrees: a restart resumes nothing.
            app.restart(crash=True)
            self.assertFalse(read(app, f"/sessions/{session}/status")["running"])
            self.assertEqual(self.texts(app, session), seen)

    def test_a_full_disk(self):
        mounts = []

        def on_tmpfs(app):
            # ALBEDO_HOME becomes a small tmpfs of its own, keeping the files
            # the harness wrote there.
            saved = {p.name: p.read_bytes() for p in app.home.iterdir()}
            result = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(app.home)],
                capture_output=True, text=True,
            )
            if result.returncode != 0:
                raise unittest.SkipTest(f"cannot mount a tmpfs here: {result.stderr.strip()}")
            mounts.append(app.home)
            for name, data in saved.items():
                (app.home / name).write_bytes(data)

        def unmount():
            for path in mounts:
                subprocess.run(["umount", "-l", str(path)], capture_output=True)
                shutil.rmtree(path.parent, ignore_errors=True)

        self.addCleanup(unmount)
        with Albedo(self.provider, prepare=on_tmpfs) as app:
            session = app.session()
            turn(app, session, "first")
            committed = self.texts(app, session)
            filler = app.home / "filler"
            with open(filler, "wb") as out:
                block = b"\0" * 65536
                try:
                    while True:
                        out.write(block)
                        out.flush()
                except OSError:
                    pass
            try:
                big = "x" * 300_000  # more pages than any free ones left
                self.refused(app, f"/sessions/{session}/events", {"content": big}, FULL)
                self.assertFalse(read(app, f"/sessions/{session}/status")["running"])
                self.assertEqual(self.texts(app, session), committed)
            finally:
                filler.unlink()

            turn(app, session, "after the disk is freed")
            self.assertEqual(
                self.texts(app, session),
                committed + [("user", "after the disk is freed"), ("message", "answered")],
            )


if __name__ == "__main__":
    unittest.main()
