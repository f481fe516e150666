"""Two daemons share one PostgreSQL database, and b maps a's workspace
folder to a copy of its own (ALBEDO_WORKSPACE_MAP), as a server maps the
folders of a laptop: when a dies (``kill -9``) mid-cell, b resumes the turn
in its copy. The next cell's file lands in the copy, none in a's folder
(which b's sandbox keeps its kernel from writing), b shows the copy as
the session's workspace, and the store keeps the one a made it in."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import unittest
from pathlib import Path

from harness import PostgresDatabase, Provider, alive, kernel_processes, python, text, wait_until
from scripts import latest_user, outputs_since_user
from test_shared_store import CELL, MARKER, SharedDaemon

WAIT = 60
"""How long the test waits for a state before it fails: generous on a
loaded machine."""

LANDED = "landed.txt"
ESCAPED = "escaped.txt"


def write_cell(elsewhere: str) -> str:
    """A cell that writes a file where it runs, saying where that is, and
    tries to write one in ``elsewhere``."""
    return f"""import os
with open({LANDED!r}, 'w') as f:
    f.write(os.getcwd())
try:
    with open(os.path.join({elsewhere!r}, {ESCAPED!r}), 'w') as f:
        f.write('x')
    print('wrote elsewhere')
except OSError as e:
    print('refused elsewhere:', type(e).__name__)
"""


class MappedDaemon(SharedDaemon):
    """A daemon on the shared database that maps one folder to another."""

    def __init__(self, provider, database, node: str, mapping: str):
        super().__init__(provider, database, node)
        self.mapping = mapping

    def env(self) -> dict:
        env = super().env()
        env["ALBEDO_WORKSPACE_MAP"] = self.mapping
        return env


@unittest.skipUnless(os.environ.get("ALBEDO_TEST_POSTGRES_URL") or os.environ.get("CI") == "true",
                     "needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
class SharedMappedTest(unittest.TestCase):
    def test_a_turn_resumes_in_the_folder_its_workspace_maps_to(self):
        folders = {}

        def model(request):
            if outputs_since_user(request):
                return text("finished")
            if "marker" in latest_user(request):
                return python(CELL)
            return python(write_cell(folders["a"]))  # after the restart note

        provider = Provider(model)
        self.addCleanup(provider.close)
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        database = PostgresDatabase()
        stack.callback(database.drop)
        a = stack.enter_context(SharedDaemon(provider, database, "node-a"))
        folders["a"] = str(a.workspace)
        copy = Path(tempfile.mkdtemp(prefix="albedo-mapped-"))
        self.addCleanup(shutil.rmtree, copy, True)
        b = stack.enter_context(MappedDaemon(provider, database, "node-b", f"{a.workspace}={copy}"))

        session = a.session()
        a.prompt(session, "append to the marker").close()
        marker = a.workspace / MARKER
        self.assertTrue(wait_until(lambda: marker.exists() and len(marker.read_text().split()) >= 3, WAIT),
                        f"the cell never ran\n{a._log_tail()}")
        kernels = kernel_processes(a.workspace)
        os.kill(a.connection["pid"], signal.SIGKILL)
        a.connection = None
        self.assertTrue(wait_until(lambda: not any(alive(pid) for pid in kernels), WAIT),
                        "the dead daemon's kernel outlived it")

        self.assertTrue(wait_until(lambda: b.history(session)["items"][-1]["kind"] == "turn", WAIT),
                        f"b did not resume the turn in its copy\n{b._log_tail()}")
        self.assertIn("took over the turn", b._log_tail(20000))
        self.assertEqual((copy / LANDED).read_text(), str(copy), "the cell did not run in the copy")
        self.assertFalse((a.workspace / LANDED).exists(), "the cell wrote in a's folder")
        items = b.history(session)["items"]
        restarts = [i for i in items if i["kind"] == "user" and i.get("source") == "daemon restart"]
        self.assertEqual(len(restarts), 1, items)
        self.assertFalse((copy / MARKER).exists(), "the marker cell ran again in the copy")

        with b.api("/health") as response:
            sandbox = json.load(response).get("sandbox") or {}
        if "filesystem_writes" in sandbox.get("enforced", []):
            self.assertFalse((a.workspace / ESCAPED).exists(), "b's kernel wrote outside the mapped folder")
            output = [i for i in items if i["kind"] == "tool_result"][-1]
            self.assertIn("refused elsewhere", json.dumps(output), output)
        else:
            print("\n  (this machine enforces no sandbox writes: the escape is not checked)", flush=True)

        with b.api(f"/sessions/{session}?tail=0") as response:
            self.assertEqual(json.load(response)["session"]["workspace"], str(copy))
        stored = database.query(f"SELECT convert_from(cwd, 'UTF8') FROM sessions WHERE id = '{session}'::bytea").strip()
        self.assertEqual(stored, str(a.workspace), "the store lost the workspace the session was made in")


if __name__ == "__main__":
    unittest.main()
