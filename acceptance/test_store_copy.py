"""albedo store copy: a home's SQLite store copied into PostgreSQL and back
answers every read byte for byte as before.

Needs the PostgreSQL server ``$ALBEDO_TEST_POSTGRES_URL`` names
(scripts/test.sh starts one); without it the test fails."""

from __future__ import annotations

import base64
import json
import subprocess
import unittest

from harness import Albedo, PostgresDatabase, Provider, python, text, turn
from test_compaction import is_summary
from scripts import outputs_since_user, latest_user

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAAD")


def script(request):
    """Summarises when asked to, files a vent when told to complain, runs
    a cell for every other prompt, and answers once the cell has run."""
    if is_summary(request):
        return text("the user asked for several things; all were done")
    if outputs_since_user(request):
        return text("done \x00 \ufffd")
    if "complain" in latest_user(request):
        return python("await vent('bug', 'the tool is slow \\u00e9')")
    return python("print('ran', 'é')")


class StoreCopyTest(unittest.TestCase):
    def reads(self, app) -> dict:
        """Every read the copy must leave unchanged, as raw bytes."""
        paths = ["/sessions?archived=all", "/sessions", "/extensions/paperclips/items"]
        with app.api("/sessions?archived=all") as response:
            ids = [s["id"] for s in json.load(response)]
        for session in ids:
            paths += [f"/sessions/{session}/history", f"/sessions/{session}/tree", f"/sessions/{session}/context",
                      f"/sessions/{session}/requests", f"/sessions/{session}?tail=3"]
        out = {}
        for path in paths:
            with app.api(path) as response:
                out[path] = response.read()
        return out

    def copy(self, app, *args):
        result = subprocess.run([str(app.executable()), "store", "copy", *args], env=app.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("copied and verified 3 sessions", result.stdout)
        return result

    def test_a_home_copied_to_postgresql_and_back_reads_the_same(self):
        database = PostgresDatabase()
        self.addCleanup(database.drop)
        with Provider(script) as provider, Albedo(provider) as app:
            first = app.session()
            turn(app, first, "first")
            image = {"mimeType": "image/png", "data": base64.b64encode(PNG).decode(), "width": 2, "height": 3, "bytes": 24}
            app.api(f"/sessions/{first}/events", {"content": "look at this", "image": image}).close()
            app.idle(first)
            turn(app, first, "complain about it")
            with app.api(f"/sessions/{first}/commands", {"name": "/compact"}) as response:
                self.assertEqual(json.load(response), {"result": {"started": True}})
            app.idle(first)
            turn(app, first, "after the summary")
            with app.api(f"/sessions/{first}/fork", {"checkpoint": 1}) as response:
                fork = json.load(response)["id"]
            turn(app, fork, "in the fork")
            old = app.session()
            turn(app, old, "complain again")
            with app.api(f"/sessions/{old}?view=configuration") as response:
                tag = response.headers["ETag"]
            app.api(f"/sessions/{old}?view=configuration", {"archived": True}, method="PATCH", headers={"If-Match": tag}).close()
            with app.api("/extensions/paperclips/items") as response:
                vents = [item["value"] for item in json.load(response)["items"]]
            self.assertEqual(len(vents), 2, vents)
            app.cli("vents", "dismiss", str(vents[0]["id"]))

            # A running daemon holds the home: no copy under it.
            result = subprocess.run([str(app.executable()), "store", "copy", "--to", database.url], env=app.env(),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
            self.assertEqual(result.returncode, 1, result.stdout)
            self.assertIn("stop the daemon first", result.stderr)

            # What a fresh daemon answers on the home as it is, then on
            # its copy in PostgreSQL, then on the copy of that copy.
            app.restart()
            before = self.reads(app)
            kinds = [i["kind"] for i in json.loads(before[f"/sessions/{first}/history"])["items"]]
            for kind in ("compaction", "tool_call", "tool_result"):
                self.assertIn(kind, kinds)

            def to_postgresql(app):
                self.copy(app, "--to", database.url)
                (app.home / "albedo.sqlite").rename(app.root / "albedo.sqlite.before")
                app.database = database

            app.restart(prepare=to_postgresql)
            self.assertFalse((app.home / "albedo.sqlite").exists())
            with app.api("/health") as response:
                self.assertEqual(json.load(response)["store"], "postgresql")
            on_postgresql = self.reads(app)
            self.assertEqual(on_postgresql.keys(), before.keys())
            for path in before:
                self.assertEqual(on_postgresql[path], before[path], path)

            def back(app):
                self.copy(app, "--from", database.url, "--to", "sqlite")
                app.database = None

            app.restart(prepare=back)
            with app.api("/health") as response:
                self.assertEqual(json.load(response)["store"], "sqlite")
            again = self.reads(app)
            for path in before:
                self.assertEqual(again[path], before[path], path)
            app.database = None  # dropped by the cleanup


if __name__ == "__main__":
    unittest.main()
