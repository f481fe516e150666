"""Two daemons share one PostgreSQL database: a turn whose daemon dies
(``kill -9``) after its workspace folder was moved away stays running,
for the other daemon has no such folder, and shows an ``orphaned`` glance
once its lease has been expired for two lease times; when the folder
comes back, the other daemon takes the turn over and the glance goes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import unittest

from harness import PostgresDatabase, Provider, alive, kernel_processes, wait_until
from test_shared_store import LEASE_SECONDS, MARKER, SharedDaemon, model

WAIT = 60
"""How long the test waits for a state before it fails: generous on a
loaded machine."""


def detail(app, session: str) -> dict:
    with app.api(f"/sessions/{session}?tail=0") as response:
        return json.load(response)


def orphaned(app, session: str) -> dict | None:
    """The session's orphaned glance on the daemon, if it shows one."""
    return next((g for g in detail(app, session)["glances"] if g["extension"] == "orphaned"), None)


@unittest.skipUnless(os.environ.get("ALBEDO_TEST_POSTGRES_URL") or os.environ.get("CI") == "true",
                     "needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
class SharedOrphanedTest(unittest.TestCase):
    def test_a_turn_no_daemon_can_take_over_shows_orphaned_until_its_folder_is_back(self):
        provider = Provider(model)
        self.addCleanup(provider.close)
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        database = PostgresDatabase()
        stack.callback(database.drop)
        a = stack.enter_context(SharedDaemon(provider, database, "node-a"))
        b = stack.enter_context(SharedDaemon(provider, database, "node-b"))
        session = a.session()
        a.prompt(session, "append to the marker").close()
        marker = a.workspace / MARKER
        self.assertTrue(wait_until(lambda: marker.exists() and len(marker.read_text().split()) >= 3, WAIT),
                        f"the cell never ran\n{a._log_tail()}")
        kernels = kernel_processes(a.workspace)
        self.assertTrue(kernels, "no kernel runs the cell")
        self.assertIsNone(orphaned(b, session), "a turn its daemon runs shows orphaned")

        away = a.workspace.with_name(a.workspace.name + "-away")
        a.workspace.rename(away)
        self.addCleanup(lambda: away.exists() and away.rename(a.workspace))
        os.kill(a.connection["pid"], signal.SIGKILL)
        a.connection = None
        self.assertTrue(wait_until(lambda: not any(alive(pid) for pid in kernels), WAIT),
                        "the dead daemon's kernel outlived it")

        self.assertTrue(wait_until(lambda: orphaned(b, session) is not None, WAIT),
                        f"b never showed the session orphaned: {detail(b, session)['glances']}\n{b._log_tail()}")
        glance = orphaned(b, session)
        self.assertEqual(glance["workspace"], str(a.workspace))
        self.assertEqual(glance["last_node"], "node-a")
        self.assertGreaterEqual(glance["expired_ms"], 2 * LEASE_SECONDS * 1000)
        shown = detail(b, session)
        self.assertEqual(shown["session"]["stage"], "running")
        self.assertNotIn("node", shown["session"])
        self.assertNotIn("took over the turn", b.log())

        away.rename(a.workspace)
        self.assertTrue(wait_until(lambda: b.history(session)["items"][-1]["kind"] == "turn", WAIT),
                        f"b did not take the turn over once the folder was back\n{b._log_tail()}")
        self.assertIsNone(orphaned(b, session), "the glance outlived the takeover")
        items = b.history(session)["items"]
        restarts = [i for i in items if i["kind"] == "user" and i.get("source") == "daemon restart"]
        self.assertEqual(len(restarts), 1, items)
        self.assertIn("took over the turn", b.log())


if __name__ == "__main__":
    unittest.main()
