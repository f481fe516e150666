"""Two daemons share one PostgreSQL database: while one runs a session's
turn, the other's listing, its answer for the session and ``albedo
sessions`` name the node running it, and the running daemon's ``/health``
lists the session; once the turn ends no node is named."""

from __future__ import annotations

import contextlib
import json
import os
import unittest

from harness import Provider, PostgresDatabase, wait_until
from test_shared_store import MARKER, SharedDaemon, model

WAIT = 60
"""How long the test waits for a state before it fails: generous on a
loaded machine."""


def listed(app, session: str) -> dict:
    """The session as the daemon's listing shows it."""
    with app.api("/sessions") as response:
        return next(s for s in json.load(response) if s["id"] == session)


def health(app) -> dict:
    with app.api("/health") as response:
        return json.load(response)


@unittest.skipUnless(os.environ.get("ALBEDO_TEST_POSTGRES_URL") or os.environ.get("CI") == "true",
                     "needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
class SharedNodeTest(unittest.TestCase):
    def test_every_daemon_names_the_node_running_a_session(self):
        provider = Provider(model)
        self.addCleanup(provider.close)
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        database = PostgresDatabase()
        stack.callback(database.drop)
        a = stack.enter_context(SharedDaemon(provider, database, "node-a"))
        b = stack.enter_context(SharedDaemon(provider, database, "node-b"))
        session = a.session()
        idle = b.session(a.workspace)
        self.assertNotIn("node", listed(b, session), "an idle session names a node")
        self.assertNotIn("NODE", b.cli("sessions"))

        a.prompt(session, "append to the marker").close()
        marker = a.workspace / MARKER
        self.assertTrue(wait_until(lambda: marker.exists() and len(marker.read_text().split()) >= 3, WAIT),
                        f"the cell never ran\n{a._log_tail()}")
        # The cell runs on a: b's listing, its answer for the session and
        # its albedo sessions say so; a's health lists the session.
        self.assertEqual(listed(b, session).get("node"), "node-a")
        self.assertNotIn("node", listed(b, idle))
        with b.api(f"/sessions/{session}?tail=0") as response:
            self.assertEqual(json.load(response)["session"].get("node"), "node-a")
        table = b.cli("sessions").splitlines()
        self.assertEqual(table[0].split()[:3], ["ID", "STATE", "NODE"], table)
        row = next(line.split() for line in table if line.startswith(session))
        self.assertEqual(row[1:3], ["running", "node-a"], table)
        self.assertEqual(health(a).get("running"), [session])
        self.assertNotIn("running", health(b))

        with b.api(f"/sessions/{session}/interrupt", {}) as response:
            self.assertEqual(json.load(response), {"running": False})
        a.idle(session)
        self.assertNotIn("node", listed(b, session), "the node outlived the turn")
        self.assertNotIn("NODE", b.cli("sessions"))
        # a gives the lease up just after it stored the turn's end.
        self.assertTrue(wait_until(lambda: "running" not in health(a), WAIT), f"a still runs {health(a)}")


if __name__ == "__main__":
    unittest.main()
