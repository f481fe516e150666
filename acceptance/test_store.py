"""The store under ALBEDO_HOME: what albedo refuses to touch."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import tempfile
import unittest
from pathlib import Path

from harness import binary


class StoreTest(unittest.TestCase):
    def test_a_store_from_a_newer_albedo_is_refused_and_left_alone(self):
        with tempfile.TemporaryDirectory(prefix="albedo-newer-") as root:
            home = Path(root) / "home"
            home.mkdir(mode=0o700)
            database = home / "albedo.sqlite"
            with sqlite3.connect(database) as db:
                db.execute("CREATE TABLE sessions(id TEXT PRIMARY KEY, cwd TEXT NOT NULL)")
                db.execute("PRAGMA user_version = 999")
            before = hashlib.sha256(database.read_bytes()).hexdigest()
            env = dict(os.environ, ALBEDO_HOME=str(home), HOME=root, ALBEDO_PARENT_PID=str(os.getpid()))
            result = subprocess.run([str(binary()), "sessions"], env=env, text=True, capture_output=True, timeout=60)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("newer albedo", result.stderr)
            self.assertIn("999", result.stderr)
            self.assertEqual(hashlib.sha256(database.read_bytes()).hexdigest(), before)
            self.assertFalse((home / "daemon.json").exists())


if __name__ == "__main__":
    unittest.main()
