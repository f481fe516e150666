"""MCP servers: a stdio server of extensions.json reached by the model's
function calls and by the kernel's ``mcp`` binding; a call that hangs ends
at its timeout or an interrupt; a daemon killed mid-call leaves no server
running and does not call again.

The server is acceptance/mcpfake.py, started with a marker argument that
finds its processes (and a child it starts, as npx does): ``fake`` times
out quickly, ``slow`` waits long enough to be interrupted or killed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import sys
import unittest
import urllib.parse
import uuid
from pathlib import Path

from harness import Albedo, alive, python, start_albedo, text, tool, turn, wait_until
from scripts import latest_user, outputs_since_user

FAKE = Path(__file__).resolve().parent / "mcpfake.py"

CALL_TIMEOUT_MS = 1500


def marked(marker: str) -> set[int]:
    """The pids of the processes whose command line holds marker."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.add(int(entry))
        except OSError:
            pass
    return found


def configure(marker: str):
    """A prepare step writing extensions.json with the fake server."""

    def prepare(app: Albedo) -> None:
        servers = {
            "fake": {
                "command": sys.executable,
                "args": [str(FAKE), "--marker=" + marker, "--child"],
                "callTimeoutMs": CALL_TIMEOUT_MS,
                "env": {"GREETING": "hello"},
            },
            "slow": {"command": sys.executable, "args": [str(FAKE), "--marker=" + marker + "-slow"], "callTimeoutMs": 120000},
        }
        (app.home / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}, "mcp": {"servers": servers}}))

    return prepare


def by_prompt(replies: dict):
    """Answers a prompt holding a key with that key's reply, then "done"."""

    def script(request):
        if outputs_since_user(request):
            return text("done")
        user = latest_user(request)
        for key, reply in replies.items():
            if key in user:
                return reply
        return text("done")

    return script


def outputs(app: Albedo, session: str) -> list[str]:
    """The text of every tool output of a session, oldest first."""
    found = []
    for entry in app.history(session)["items"]:
        if entry["kind"] != "tool_result":
            continue
        for part in entry["content"]:
            if part["kind"] == "json" and part.get("field") == "result":
                result = json.loads(part["value"])
                found.append(result.get("output") or result.get("error") or "")
    return found


def stderr_of(app: Albedo, server: str) -> str:
    """The end of a server's stderr as GET /mcp shows it."""
    query = urllib.parse.urlencode({"workspace": str(app.workspace)})
    with app.api(f"/mcp?{query}") as r:
        return "".join(s.get("stderr", "") for s in json.load(r)["servers"] if s["name"] == server)


def request_tools(request: dict) -> list[str]:
    """The function names a recorded request offers."""
    names = []
    for t in request["request"].get("tools") or []:
        names.append(t.get("name") or t.get("function", {}).get("name"))
    return names


class MCPTest(unittest.TestCase):
    def start(self, replies: dict, protocol: str = "chat_completions"):
        self.marker = "albedo-mcp-test-" + uuid.uuid4().hex[:12]
        self.addCleanup(self.wait_no_servers)
        return start_albedo(self.addCleanup, by_prompt(replies), protocol=protocol, prepare=configure(self.marker))

    def wait_no_servers(self) -> None:
        if not wait_until(lambda: not marked(self.marker), 10):
            left = marked(self.marker)
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            self.fail(f"MCP server processes {left} survive their daemon")

    def test_a_models_call_and_the_python_binding_both_reach_the_server(self):
        provider, app = self.start(
            {
                "echo": tool("mcp_fake_echo", {"text": "hi"}),
                "picture": tool("mcp_fake_picture", {}),
                "broken": tool("mcp_fake_fail", {}),
                "binding": python(
                    "r = await mcp.call('fake/echo', text='from python')\n"
                    "big = await mcp.call('fake/big')\n"
                    "names = [t['tool'] for t in await mcp.tools('fake')]\n"
                    "env = (await mcp.call('fake/env'))['text']\n"
                    "note = (await mcp.read_resource('fake', 'fake://note'))['contents'][0]['text']\n"
                    "uris = [r['uri'] for r in (await mcp.resources('fake'))['resources']]\n"
                    "prompts = [p['name'] for p in (await mcp.prompts('fake'))['prompts']]\n"
                    "hello = (await mcp.get_prompt('fake', 'greet', who='you'))['messages'][0]['content']['text']\n"
                    "print(r['text'], len(big['text']), 'fake/echo' in names,\n"
                    "      'GREETING=hello' in env, any(l.startswith('ALBEDO_') or 'KEY=' in l for l in env.splitlines()))\n"
                    "print(note, uris, prompts, hello)"
                ),
            },
            protocol="responses",
        )
        session = app.session()
        turn(app, session, "echo")
        self.assertIn('echo: {"text": "hi"}', outputs(app, session)[-1])
        tools = request_tools(provider.requests[0])
        self.assertEqual(tools[0], "python")
        self.assertIn("mcp_fake_echo", tools)
        turn(app, session, "picture")
        items = app.history(session)["items"]
        images = [entry for entry in items if entry["kind"] == "tool_image"]
        self.assertEqual([(i["tool"]["name"], i["image"]["mimeType"]) for i in images], [("mcp_fake_picture", "image/png")])
        turn(app, session, "broken")
        self.assertIn("it broke", outputs(app, session)[-1])
        turn(app, session, "binding")
        self.assertIn("echo: {\"text\": \"from python\"} %d True True False" % ((1 << 20) + 8), outputs(app, session)[-1])
        self.assertIn("a note ['fake://note'] ['greet'] hello you", outputs(app, session)[-1])

    def test_a_call_hanging_past_call_timeout_ends_and_the_turn_answers(self):
        _, app = self.start({"hang": tool("mcp_fake_hang", {}), "after": tool("mcp_fake_echo", {"text": "again"})})
        session = app.session()
        # The turn's own bound (30 s) is far below the default call timeout
        # (60 s): it ends only because callTimeoutMs (1.5 s) cut the call.
        turn(app, session, "hang", timeout=30)
        self.assertIn(f"callTimeoutMs ({CALL_TIMEOUT_MS})", outputs(app, session)[-1])
        self.assertEqual(app.history(session)["items"][-2]["kind"], "assistant")
        turn(app, session, "after")
        self.assertIn("again", outputs(app, session)[-1])

    def test_a_server_hanging_on_its_listing_holds_up_no_turn_and_serves_a_later_one(self):
        self.marker = "albedo-mcp-test-" + uuid.uuid4().hex[:12]
        self.addCleanup(self.wait_no_servers)
        scratch = Path(tempfile.mkdtemp(prefix="albedo-mcp-gate-"))
        self.addCleanup(shutil.rmtree, scratch, True)
        gate = scratch / "gate"
        os.mkfifo(gate)

        def prepare(app: Albedo) -> None:
            servers = {
                "fake": {"command": sys.executable, "args": [str(FAKE), "--marker=" + self.marker]},
                # Its listing hangs until released, far longer than any
                # turn here may take, were the turn to wait for it.
                "stuck": {"command": sys.executable, "args": [str(FAKE), "--marker=" + self.marker + "-stuck", f"--list-gate={gate}"],
                          "startupTimeoutMs": 600000, "callTimeoutMs": 600000, "listWaitMs": 1000},
            }
            (app.home / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}, "mcp": {"servers": servers}}))

        provider, app = start_albedo(self.addCleanup, by_prompt({"call": tool("mcp_stuck_echo", {"text": "late"})}), prepare=prepare)
        self.addCleanup(self.release, gate)
        session = app.session()
        turn(app, session, "first", timeout=30)
        first = request_tools(provider.requests[0])
        self.assertIn("mcp_fake_echo", first)
        self.assertFalse([n for n in first if n.startswith("mcp_stuck_")], first)
        self.assertTrue(wait_until(lambda: "listing held" in stderr_of(app, "stuck"), 30), "stuck never got the listing")
        self.assertIn('The tools of stuck are not listed yet', json.dumps(provider.requests[0]["request"]))

        self.assertTrue(wait_until(lambda: self.release(gate), 10), "stuck does not wait on its gate")
        query = urllib.parse.urlencode({"workspace": str(app.workspace)})

        def stuck_listed() -> bool:
            with app.api(f"/mcp?{query}") as r:
                return any(s["name"] == "stuck" and s.get("tools") for s in json.load(r)["servers"])

        self.assertTrue(wait_until(stuck_listed, 30), "stuck's listing never ended")
        asked = len(provider.requests)
        turn(app, session, "call", timeout=30)
        later = provider.requests[asked]
        self.assertIn("mcp_stuck_echo", request_tools(later))
        self.assertIn("The MCP tools offered changed", json.dumps(later["request"]))
        self.assertIn('echo: {"text": "late"}', outputs(app, session)[-1])

    def release(self, gate: Path) -> bool:
        """Lets a server waiting on gate go on, once; says whether one did."""
        try:
            fd = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return False  # no server waits on it (yet, or any more)
        os.close(fd)
        gate.unlink()
        return True

    def hanging(self, app: Albedo, session: str) -> None:
        """Sends a prompt whose call hangs on slow, and waits until the
        server has it."""
        app.prompt(session, "hang slowly").close()
        self.assertTrue(wait_until(lambda: "hanging" in stderr_of(app, "slow"), 30), "slow never got the call")

    def test_an_interrupt_ends_a_hanging_call_and_the_server_serves_on(self):
        _, app = self.start({"hang slowly": tool("mcp_slow_hang", {}), "after": tool("mcp_slow_echo", {"text": "again"})})
        session = app.session()
        self.hanging(app, session)
        app.api(f"/sessions/{session}/interrupt", {}).close()
        app.idle(session, timeout=30)
        self.assertIn("interrupted", outputs(app, session)[-1])
        turn(app, session, "after")
        self.assertIn("again", outputs(app, session)[-1])

    def test_after_a_kill_9_mid_call_no_server_survives_and_the_call_is_not_run_again(self):
        _, app = self.start({"hang slowly": tool("mcp_slow_hang", {})})
        session = app.session()
        self.hanging(app, session)
        self.assertTrue(wait_until(lambda: len(marked(self.marker)) >= 3, 10), "the servers and fake's child did not all start")
        pid = app.connection["pid"]

        def nothing_left(_app):
            self.assertFalse(alive(pid))
            self.assertTrue(wait_until(lambda: not marked(self.marker), 10), f"left running: {marked(self.marker)}")

        app.restart(crash=True, prepare=nothing_left)
        app.idle(session, timeout=60)
        self.assertIn("it was not run again", outputs(app, session)[-1])
        self.assertEqual(stderr_of(app, "slow").count("hanging"), 0)
        notes = [i["text"] for i in app.history(session)["items"] if i["kind"] == "user" and i.get("source") == "daemon restart"]
        self.assertEqual(len(notes), 1, notes)
        self.assertIn("The MCP tool call mcp_slow_hang", notes[0])
        self.assertNotIn("python cell", notes[0])


if __name__ == "__main__":
    unittest.main()
