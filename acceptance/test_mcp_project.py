"""Acceptance tests for the MCP servers' operations: a repository's own
servers (``.mcp.json``, ``.vscode/mcp.json``) wait for the user's approval,
kept in ALBEDO_HOME by a hash of the entry; ``GET /mcp``, the approve and
restart routes and ``albedo mcp``."""

import json
import os
from pathlib import Path
import subprocess
import unittest
import urllib.error
import urllib.parse

from harness import Albedo, Provider, text

BINARY = Path(os.environ.get("ALBEDO_TEST_BINARY") or Path(__file__).resolve().parent.parent / "bin" / "albedo")
"""The binary under test, as the harness chooses it."""


def albedo(app, *args):
    """Runs the CLI in the workspace; returns the completed process."""
    return subprocess.run(
        [str(BINARY), *map(str, args)], cwd=app.workspace, env=app.env(),
        input="", capture_output=True, text=True, timeout=60,
    )


def marker_server(marker: Path, text: str = "v1") -> dict:
    """A project server entry whose command would create the marker."""
    return {"command": "sh", "args": ["-c", f"echo {text} > {marker}; exec cat"]}


class ProjectServersTest(unittest.TestCase):
    """A server the repository names runs only once the user approved its
    entry as it is."""

    def listing(self, app) -> dict:
        query = urllib.parse.urlencode({"workspace": str(app.workspace)})
        with app.api(f"/mcp?{query}") as r:
            return json.load(r)

    def server(self, app, name: str) -> dict:
        found = [s for s in self.listing(app)["servers"] if s["name"] == name]
        self.assertEqual(len(found), 1, self.listing(app))
        return found[0]

    def test_a_project_server_waits_for_approval_and_again_after_an_edit(self):
        def prepare(app):
            (app.workspace / ".git").mkdir()
            app.marker = app.root / "marker"
            (app.workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": marker_server(app.marker)}}))
            (app.workspace / ".vscode").mkdir()
            (app.workspace / ".vscode" / "mcp.json").write_text(json.dumps(
                {"servers": {"vs": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}))

        with Provider(lambda request: text("unused")) as provider, Albedo(provider, prepare=prepare) as app:
            with app.api("/health") as r:
                self.assertIn("mcp", json.load(r)["capabilities"])
            listing = self.listing(app)
            self.assertEqual(listing["root"], str(app.workspace))
            local = self.server(app, "local")
            self.assertEqual(local["state"], "awaiting_approval")
            self.assertEqual(local["source"], ".mcp.json")
            self.assertEqual(self.server(app, "vs")["source"], ".vscode/mcp.json")
            shown = albedo(app, "mcp", "list")
            self.assertEqual(shown.returncode, 0, shown.stderr)
            self.assertIn("albedo mcp approve local", shown.stdout)
            self.assertFalse(app.marker.exists())
            session = app.session()
            with app.api(f"/sessions/{session}") as r:
                glance = [g for g in json.load(r)["glances"] if g["extension"] == "mcp"]
            self.assertEqual(glance, [{"extension": "mcp", "servers": 2, "running": 0, "awaiting_approval": ["local", "vs"],
                                       "failed": [], "problems": []}])

            approved = albedo(app, "mcp", "approve", "local")
            self.assertEqual(approved.returncode, 0, approved.stderr)
            self.assertIn("approved local (.mcp.json)", approved.stdout)
            self.assertEqual(self.server(app, "local")["state"], "idle")
            self.assertEqual(self.server(app, "vs")["state"], "awaiting_approval")
            kept = json.loads((app.home / "mcp-approvals.json").read_text())
            self.assertEqual([a["server"] for a in kept["approved"].values()], ["local"])

            # Reformatting keeps the approval; an edit of the entry drops it.
            (app.workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": marker_server(app.marker)}}, indent=4))
            self.assertEqual(self.server(app, "local")["state"], "idle")
            (app.workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": marker_server(app.marker, "v2")}}))
            self.assertEqual(self.server(app, "local")["state"], "awaiting_approval")

    def test_mistakes_are_clear(self):
        def prepare(app):
            (app.home / "extensions.json").write_text(json.dumps({
                "models": {"refreshHours": 0},
                "mcp": {"servers": {"mine": {"command": "true"}, "bad": {"url": "http://example.com/mcp"}}}}))

        with Albedo(prepare=prepare) as app:
            listing = self.listing(app)
            self.assertEqual([s["name"] for s in listing["servers"]], ["mine"])
            self.assertTrue(any("mcp.servers.bad" in p for p in listing["problems"]), listing)
            for args, code, says in [
                (["approve", "mine"], 400, "needs no approval"),
                (["approve", "nothing"], 404, "names no MCP server"),
                (["restart", "nothing"], 404, "no MCP server"),
            ]:
                with self.subTest(args=args):
                    with self.assertRaises(urllib.error.HTTPError) as caught:
                        app.api(f"/mcp/{args[1]}/{args[0]}", {"workspace": str(app.workspace)})
                    self.assertEqual(caught.exception.code, code)
                    result = albedo(app, "mcp", *args)
                    self.assertNotEqual(result.returncode, 0)
                    self.assertIn(says, result.stderr)
            with self.assertRaises(urllib.error.HTTPError) as caught:
                app.api("/mcp?workspace=relative")
            self.assertEqual(caught.exception.code, 400)
            self.assertEqual(albedo(app, "mcp", "frobnicate").returncode, 2)


if __name__ == "__main__":
    unittest.main()
