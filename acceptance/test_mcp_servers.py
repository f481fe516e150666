"""MCP servers as users run them: the real third-party servers
(server-everything over stdio and streamable HTTP, server-filesystem),
the environment a server sees, a server that fails in each way it can
beside one that serves, the names long or odd server and tool names get,
and a repository's own server that runs only once approved.

The third-party servers are those scripts/test.sh installs from the npm
registry (pinned versions, in a scratch prefix; never ``npx -y`` here):
ALBEDO_TEST_MCP_EVERYTHING and ALBEDO_TEST_MCP_FILESYSTEM name them.
Without them their tests are skipped, except under CI.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import unittest
import urllib.parse
import uuid
from pathlib import Path

from harness import Albedo, python, start_albedo, text, tool, turn, wait_until
from scripts import latest_user, outputs_since_user

FAKE = Path(__file__).resolve().parent / "mcpfake.py"

VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def program(variable: str, test: unittest.TestCase) -> str:
    """The installed third-party server a variable names; skips the test
    (fails it under CI) when it is not set."""
    value = os.environ.get(variable, "")
    if not value:
        if os.environ.get("CI") == "true":
            test.fail(f"{variable} is not set: scripts/test.sh installs the MCP servers")
        test.skipTest(f"{variable} is not set (scripts/test.sh installs the MCP servers)")
    return value


def marked(marker: str) -> set[int]:
    """The pids of the processes whose command line holds marker."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.add(int(entry))
            except OSError:
                pass
    return found


def fake(marker: str, *args: str, **settings) -> dict:
    """The entry of a fake stdio server."""
    return {"command": sys.executable, "args": [str(FAKE), "--marker=" + marker, *args], **settings}


def configure(servers: dict):
    """A prepare step writing extensions.json with servers."""

    def prepare(app: Albedo) -> None:
        (app.home / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}, "mcp": {"servers": servers}}))

    return prepare


def by_prompt(replies: dict):
    """Answers a prompt with a line that is a key with that key's reply (a
    note on changed tools may share the message), then "done"."""

    def script(request):
        if outputs_since_user(request):
            return text("done")
        lines = [line.strip() for line in latest_user(request).splitlines()]
        for key, reply in replies.items():
            if key in lines:
                return reply
        return text("done")

    return script


def outputs(app: Albedo, session: str) -> list[tuple[str, str]]:
    """Each tool output of a session with the name of the tool it answers,
    oldest first."""
    found = []
    for entry in app.history(session)["items"]:
        if entry["kind"] != "tool_result":
            continue
        for part in entry["content"]:
            if part["kind"] == "json" and part.get("field") == "result":
                result = json.loads(part["value"])
                found.append((entry["tool"]["name"], result.get("output") or result.get("error") or ""))
            elif part["kind"] == "text":
                found.append((entry["tool"]["name"], part["text"]))
    return found


def offered(request: dict) -> list[str]:
    """The function names a recorded request offers."""
    return [t.get("name") or t.get("function", {}).get("name") for t in request["request"].get("tools") or []]


def listing(app: Albedo, workspace=None) -> dict:
    query = urllib.parse.urlencode({"workspace": str(workspace or app.workspace)})
    with app.api(f"/mcp?{query}") as r:
        return json.load(r)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MCPServersTest(unittest.TestCase):
    def start(self, replies: dict, servers: dict, **options):
        return start_albedo(self.addCleanup, by_prompt(replies), prepare=configure(servers), **options)

    def no_servers_left(self, marker: str) -> None:
        def check():
            if not wait_until(lambda: not marked(marker), 10):
                left = marked(marker)
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                self.fail(f"MCP server processes {left} survive their daemon")

        self.addCleanup(check)

    def test_server_everything_over_stdio_and_streamable_http(self):
        everything = program("ALBEDO_TEST_MCP_EVERYTHING", self)
        port = free_port()
        web = subprocess.Popen([everything, "streamableHttp"], env={**os.environ, "PORT": str(port)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.addCleanup(web.wait)
        self.addCleanup(os.killpg, web.pid, signal.SIGKILL)

        def listening():
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        self.assertTrue(wait_until(listening, 60), "server-everything never listened over HTTP")
        provider, app = self.start(
            {
                "stdio": tool("mcp_everything_echo", {"message": "over stdio"}),
                "http": python("r = await mcp.call('web/echo', message='over http')\nprint(r['text'])"),
                "image": tool("mcp_everything_get-tiny-image", {}),
            },
            {"everything": {"command": everything, "args": ["stdio"], "startupTimeoutMs": 60000},
             "web": {"url": f"http://127.0.0.1:{port}/mcp", "startupTimeoutMs": 60000}},
            protocol="responses",
        )
        session = app.session()
        turn(app, session, "stdio", timeout=120)
        names = offered(provider.requests[0])
        self.assertIn("mcp_everything_echo", names)
        self.assertEqual([n for n in names if not VALID_NAME.match(n)], [])
        self.assertEqual(outputs(app, session)[-1][0], "mcp_everything_echo")
        self.assertIn("over stdio", outputs(app, session)[-1][1])
        turn(app, session, "http", timeout=120)
        self.assertIn("over http", outputs(app, session)[-1][1])
        turn(app, session, "image", timeout=120)
        images = [e for e in app.history(session)["items"] if e["kind"] == "tool_image"]
        self.assertEqual([i["tool"]["name"] for i in images], ["mcp_everything_get-tiny-image"])
        self.assertTrue(images[0]["image"]["mimeType"].startswith("image/"))
        servers = {s["name"]: s for s in listing(app)["servers"]}
        self.assertEqual((servers["everything"]["state"], servers["web"]["state"]), ("running", "running"), servers)
        self.assertEqual(servers["web"]["transport"], "http")
        self.assertIn("echo", [t["tool"] for t in servers["web"]["tools"]])

    def test_server_filesystem_allowed_the_root_still_cannot_reach_albedos_home(self):
        filesystem = program("ALBEDO_TEST_MCP_FILESYSTEM", self)

        def script(request):
            if outputs_since_user(request):
                return text("done")
            verb, path = latest_user(request).split(" ", 1)
            if verb == "read":
                return tool("mcp_fs_read_text_file", {"path": path})
            return tool("mcp_fs_write_file", {"path": path, "content": "planted"})

        def prepare(app):
            configure({"fs": {"command": filesystem, "args": ["/"], "startupTimeoutMs": 60000}})(app)
            (app.home / "secret.txt").write_text("home secret")
            (app.workspace / "note.txt").write_text("workspace note")

        provider, app = start_albedo(self.addCleanup, script, prepare=prepare)
        session = app.session()
        turn(app, session, f"read {app.workspace / 'note.txt'}", timeout=120)
        self.assertIn("workspace note", outputs(app, session)[-1][1])
        for prompt in (f"read {app.home / 'secret.txt'}", f"read {app.home / 'config.json'}", f"write {app.home / 'planted.txt'}"):
            with self.subTest(prompt=prompt):
                turn(app, session, prompt, timeout=120)
                name, output = outputs(app, session)[-1]
                self.assertTrue(name.startswith("mcp_fs_"), name)
                self.assertNotIn("home secret", output)
                self.assertNotIn("fixture-key", output)
        self.assertFalse((app.home / "planted.txt").exists())

    def test_a_server_sees_its_named_variables_and_no_provider_key_or_albedo_variable(self):
        marker = "albedo-mcp-env-" + uuid.uuid4().hex[:12]
        self.no_servers_left(marker)

        class Leaky(Albedo):
            def env(self):
                env = super().env()
                env.update({"OPENAI_API_KEY": "sk-provider-secret", "ALBEDO_EXTRA": "albedo-own", "MY_SERVICE_TOKEN": "tok-123"})
                return env

        _, app = self.start({"env": tool("mcp_fake_env", {})},
                            {"fake": fake(marker, env={"GREETING": "hello", "SERVICE_TOKEN": "${MY_SERVICE_TOKEN}"})},
                            daemon=Leaky)
        session = app.session()
        turn(app, session, "env")
        name, output = outputs(app, session)[-1]
        self.assertEqual(name, "mcp_fake_env")
        lines = output.splitlines()
        self.assertIn("GREETING=hello", lines)
        self.assertIn("SERVICE_TOKEN=tok-123", lines)
        for leak in ("sk-provider-secret", "OPENAI_API_KEY", "MY_SERVICE_TOKEN", "albedo-own", "fixture-key"):
            self.assertNotIn(leak, output)
        self.assertEqual([l for l in lines if l.startswith("ALBEDO_")], [])

    def test_each_failure_is_its_calls_output_the_turn_answers_and_other_servers_serve(self):
        marker = "albedo-mcp-fail-" + uuid.uuid4().hex[:12]
        self.no_servers_left(marker)
        provider, app = self.start(
            {
                "rpcerror": tool("mcp_fake_rpcerror", {}),
                "fail": tool("mcp_fake_fail", {}),
                "big": tool("mcp_fake_big", {}),
                "shout": tool("mcp_fake_shout", {}),
                "grow": tool("mcp_fake_grow", {}),
                "extra": tool("mcp_fake_extra", {"text": "new"}),
                "crash": tool("mcp_fake_crash", {}),
                "other": tool("mcp_other_echo", {"text": "still here"}),
            },
            {"fake": fake(marker), "other": fake(marker + "-other")},
        )
        session = app.session()
        cases = [
            ("rpcerror", "mcp_fake_rpcerror", ["answered an error", "no database"]),
            ("fail", "mcp_fake_fail", ["it broke"]),
            ("big", "mcp_fake_big", ["HEAD", "TAIL", "mcp.call"]),
            ("shout", "mcp_fake_shout", ["shouted"]),
            ("grow", "mcp_fake_grow", ["grew"]),
            ("extra", "mcp_fake_extra", ["extra: new"]),
            ("crash", "mcp_fake_crash", ["lost", "whether it ran is unknown", "crashing on purpose"]),
            ("other", "mcp_other_echo", ["still here"]),
        ]
        for prompt, function, says in cases:
            with self.subTest(prompt=prompt):
                before = len(provider.requests)
                turn(app, session, prompt)
                name, output = outputs(app, session)[-1]
                self.assertEqual(name, function)
                for words in says:
                    self.assertIn(words, output)
                items = app.history(session)["items"]
                self.assertEqual([i["kind"] for i in items[-3:]][-2:], ["assistant", "turn"], items[-3:])
                if prompt == "big":
                    self.assertLess(len(output), 64 << 10)
                if prompt == "shout":
                    fake_server = [s for s in listing(app)["servers"] if s["name"] == "fake"][0]
                    self.assertIn("shouting to stderr", fake_server["stderr"])
                    logs = subprocess.run([str(app.executable()), "mcp", "logs", "fake"], cwd=app.workspace, env=app.env(),
                                          capture_output=True, text=True, timeout=60)
                    self.assertIn("shouting to stderr", logs.stdout)
                if prompt == "grow":
                    # The tool set changes only between turns.
                    self.assertNotIn("mcp_fake_extra", offered(provider.requests[-1]))
                if prompt == "extra":
                    self.assertIn("mcp_fake_extra", offered(provider.requests[before]))
        fake_server = [s for s in listing(app)["servers"] if s["name"] == "fake"][0]
        self.assertIn("crashing on purpose", fake_server.get("last_error", ""))

    def test_long_and_odd_names_fit_stay_apart_and_survive_a_restart(self):
        marker = "albedo-mcp-names-" + uuid.uuid4().hex[:12]
        self.no_servers_left(marker)
        server, long_tool = "s" * 40, "t" * 40
        provider, app = self.start(
            {"hello": text("hi"), "huge": python("print((await mcp.call('huge/echo', text='via python'))['text'])")},
            {server: fake(marker, "--tool=" + long_tool), "a.b": fake(marker), "a_b": fake(marker), "huge": fake(marker, "--big-schema")},
        )
        session = app.session()
        turn(app, session, "hello")
        names = offered(provider.requests[-1])
        # A server whose schemas pass the budget is reached through Python
        # only, which the instructions and GET /mcp say.
        self.assertEqual([n for n in names if n.startswith("mcp_huge")], [])
        self.assertIn('The tools of huge are offered through Python only: list them with `await mcp.tools(\\"huge\\")`', json.dumps(provider.requests[-1]["request"]))
        shown = {s["name"]: s for s in listing(app)["servers"]}
        self.assertEqual({name: s["exposure"] for name, s in shown.items()}, {server: "functions", "a.b": "functions", "a_b": "functions", "huge": "python"})
        self.assertEqual(sorted(t["function"] for s in shown.values() if s["exposure"] == "functions" for t in s["tools"]), sorted(n for n in names if n != "python"))
        turn(app, session, "huge")
        self.assertIn('echo: {"text": "via python"}', outputs(app, session)[-1][1])
        self.assertEqual([n for n in names if not VALID_NAME.match(n)], [])
        longs = [n for n in names if n.startswith("mcp_" + server) and "ttttt" in n]
        self.assertEqual(len(longs), 1, names)
        self.assertLessEqual(len(longs[0]), 64)
        echoes = sorted(n for n in names if n.startswith("mcp_a_b_echo"))
        self.assertEqual(len(echoes), 2, names)
        self.assertEqual(len(set(names)), len(names))

        app.restart()
        turn(app, session, "hello")
        self.assertEqual(sorted(offered(provider.requests[-1])), sorted(names))

    def test_a_repositorys_own_server_runs_only_once_approved_and_again_after_an_edit(self):
        marker = "albedo-mcp-project-" + uuid.uuid4().hex[:12]
        self.no_servers_left(marker)

        def entry(app, *extra):
            started = app.workspace / "started"
            return {"command": "sh", "args": ["-c", f'touch "{started}"; exec "{sys.executable}" "{FAKE}" --marker={marker} {" ".join(extra)}']}

        def prepare(app):
            (app.workspace / ".git").mkdir()
            (app.workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": entry(app)}}))

        provider, app = start_albedo(self.addCleanup, by_prompt({"echo": tool("mcp_local_echo", {"text": "approved"})}), prepare=prepare)
        started = app.workspace / "started"
        session = app.session()
        turn(app, session, "hello")
        self.assertEqual([n for n in offered(provider.requests[-1]) if n.startswith("mcp_local")], [])
        self.assertFalse(started.exists())
        self.assertEqual(listing(app)["servers"][0]["state"], "awaiting_approval")

        approved = subprocess.run([str(app.executable()), "mcp", "approve", "local"], cwd=app.workspace, env=app.env(),
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(approved.returncode, 0, approved.stderr)
        before = len(provider.requests)
        turn(app, session, "echo")
        self.assertIn("mcp_local_echo", offered(provider.requests[before]))
        self.assertTrue(started.exists())
        self.assertEqual(outputs(app, session)[-1][0], "mcp_local_echo")
        self.assertIn("approved", outputs(app, session)[-1][1])

        (app.workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": entry(app, "--edited")}}))
        started.unlink()
        turn(app, session, "hello")
        self.assertEqual([n for n in offered(provider.requests[-1]) if n.startswith("mcp_local")], [])
        self.assertFalse(started.exists())
        self.assertEqual(listing(app)["servers"][0]["state"], "awaiting_approval")


if __name__ == "__main__":
    unittest.main()
