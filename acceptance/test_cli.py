"""Acceptance tests for the scripting side of the CLI: ``albedo run`` (the
answer on stdout, progress on stderr, ``--json`` event lines, the exit
status of a turn that fails or is interrupted), ``albedo vents`` (list,
show, reply, dismiss, delete) and ``albedo login``'s key prompt."""

import json
import os
from pathlib import Path
import shutil
import subprocess
import unittest

from harness import Albedo, Provider, python, text, wait_until
from scripts import cell_then_answer
from terminal import Terminal

BINARY = Path(os.environ.get("ALBEDO_TEST_BINARY") or Path(__file__).resolve().parent.parent / "bin" / "albedo")
"""The binary under test, as the harness chooses it."""

DEADLINE = 60
"""Seconds any one wait may take before the test gives up."""


def environment(app):
    """The environment the harness runs the CLI with."""
    return app.env()


def albedo(app, *args, stdin=None):
    """Runs the CLI in the workspace; returns the completed process, whatever
    its exit status."""
    return subprocess.run(
        [str(BINARY), *map(str, args)],
        cwd=app.workspace,
        env=environment(app),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )


def last_user_text(request):
    """The text of the last user message of a Chat Completions request."""
    for message in reversed(request["messages"]):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
            return content
    return None


def answered(request):
    """Whether the request ends with a tool result (the cell ran)."""
    return request["messages"][-1].get("role") == "tool"


class RunTest(unittest.TestCase):
    """``albedo run`` sends one prompt and reports its turn."""

    def test_the_answer_goes_to_stdout_and_the_cells_to_stderr(self):
        # stderr shows each cell: its code, the files it changed, how long it
        # took, its last printed lines and its value
        code = "print('cell ran')\nopen('made.txt', 'w').write('x')\nfor i in range(1, 8):\n    print('row', i)\n6 * 7"
        provider = Provider(cell_then_answer(code, "All done: 42."))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            result = albedo(app, "run", "make a file")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout, "All done: 42.\n")
            self.assertIn("python", result.stderr)
            self.assertIn("print('cell ran')", result.stderr)
            self.assertIn("+made.txt", result.stderr)
            self.assertTrue((app.workspace / "made.txt").exists())
            self.assertEqual(last_user_text(provider.requests[0]["request"]), "make a file")
            self.assertRegex(result.stderr, r"→ ok \d+(ms|\.\ds)")
            self.assertIn("│ … 3 earlier lines", result.stderr)
            self.assertIn("│ row 7", result.stderr)
            self.assertNotIn("│ row 2", result.stderr)
            self.assertIn("= 42", result.stderr)

    def test_the_prompt_can_come_from_stdin_to_a_named_session(self):
        provider = Provider(lambda request: text("read you"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            result = albedo(app, "run", "--session", session, stdin="a prompt\nover two lines\n")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout, "read you\n")
            self.assertEqual(last_user_text(provider.requests[-1]["request"]), "a prompt\nover two lines")
            # the same session, with both items
            kinds = [item["kind"] for item in app.history(session)["items"]]
            self.assertEqual(kinds[:2], ["user", "assistant"])

    def test_continue_says_which_session_it_took(self):
        provider = Provider(lambda request: text("again"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            first = albedo(app, "run", "start here")
            self.assertEqual(first.returncode, 0, first.stderr)
            session = json.loads(app.cli("sessions", "--json"))[0]["id"]
            result = albedo(app, "run", "--continue", "go on")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn(f"continuing session {session} “start here” in {app.workspace}", result.stderr)

    def test_json_prints_the_turn_as_event_lines(self):
        provider = Provider(cell_then_answer("print(6 * 7)", "forty-two"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            result = albedo(app, "run", "--json", "compute")
            self.assertEqual(result.returncode, 0, result.stderr)
            events = [json.loads(line) for line in result.stdout.splitlines()]
            types = [event["type"] for event in events]
            self.assertEqual(events[0]["type"], "user")
            self.assertEqual(events[0]["text"], "compute")
            for expected in ("tool_call", "tool", "message"):
                self.assertIn(expected, types)
            self.assertEqual(events[-1], {**events[-1], "type": "turn", "status": "finished"})
            tool = next(event for event in events if event["type"] == "tool")
            self.assertEqual(json.loads(tool["result"])["output"], "42\n")
            message = next(event for event in events if event["type"] == "message")
            self.assertEqual(message["text"], "forty-two")

    def test_a_failed_turn_exits_non_zero(self):
        provider = Provider(lambda request: text("never"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            # The session's provider disappears from config.json: its next
            # turn fails with an error in the transcript.
            (app.home / "config.json").write_text(json.dumps({"providers": {}}))
            result = albedo(app, "run", "--session", session, "hello?")
            self.assertNotEqual(result.returncode, 0)
            self.assertEqual(result.stdout, "")
            self.assertIn("failed", result.stderr)
            self.assertIn("fixture", result.stderr)

    def test_an_interrupted_turn_exits_non_zero(self):
        provider = Provider(cell_then_answer("import time\ntime.sleep(120)", "unreachable"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            process = subprocess.Popen(
                [str(BINARY), "run", "--session", session, "wait forever"],
                cwd=app.workspace,
                env=environment(app),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            self.addCleanup(process.kill)

            def cell_started():
                return any(event["type"] == "tool_call" for event in app.events(session))

            self.assertTrue(wait_until(cell_started, DEADLINE), "the cell never started")
            app.api(f"/sessions/{session}/interrupt", {}).close()
            stdout, stderr = process.communicate(timeout=DEADLINE)
            self.assertNotEqual(process.returncode, 0, stderr)
            self.assertIn("interrupted", stderr)
            self.assertEqual(stdout, "")

    def test_run_refuses_an_empty_prompt(self):
        provider = Provider(lambda request: text("x"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            result = albedo(app, "run", stdin="  \n")
            self.assertEqual(result.returncode, 2)
            self.assertIn("nothing to send", result.stderr)
            self.assertEqual(provider.requests, [])


class VentsTest(unittest.TestCase):
    """``albedo vents`` triages the ledger the models fill."""

    def setUp(self):
        def script(request):
            if answered(request):
                return text("filed")
            topic = "bug" if "bug" in last_user_text(request) else "workflow"
            return python(
                f"await vent({topic!r}, 'the {topic} report', suggestion='fix the {topic}', title='{topic} title')"
            )

        self.provider = Provider(script)
        self.addCleanup(self.provider.close)

    def vents(self, app):
        with app.api("/extensions/paperclips/items?limit=100") as response:
            return [item["value"] for item in json.load(response)["items"]]

    def test_list_show_reply_dismiss_delete(self):
        with Albedo(self.provider) as app:
            self.assertIn("no vents", albedo(app, "vents").stdout)
            session = app.session()
            for prompt in ("file a bug", "file a workflow"):
                result = albedo(app, "run", "--session", session, prompt)
                self.assertEqual(result.returncode, 0, result.stderr)
            bug, workflow = sorted(self.vents(app), key=lambda vent: vent["message"])
            self.assertEqual(bug["message"], "the bug report")

            listing = albedo(app, "vents")
            self.assertEqual(listing.returncode, 0, listing.stderr)
            lines = listing.stdout.splitlines()
            self.assertIn("STATUS", lines[0])
            # newest first
            self.assertIn("workflow title", lines[1])
            self.assertIn(f"#{workflow['id']}", lines[1])
            self.assertIn("bug title", lines[2])
            self.assertIn("open", lines[2])

            listed = json.loads(albedo(app, "vents", "--json").stdout)
            self.assertEqual([vent["id"] for vent in listed], [workflow["id"], bug["id"]])

            shown = albedo(app, "vents", "show", bug["id"])
            self.assertEqual(shown.returncode, 0, shown.stderr)
            for expected in ("the bug report", "fix the bug", session, str(app.workspace)):
                self.assertIn(expected, shown.stdout)

            replied = albedo(app, "vents", "reply", f"#{bug['id']}", "thanks,", "on it")
            self.assertEqual(replied.returncode, 0, replied.stderr)
            self.assertIn("next turn", replied.stdout)
            now = next(vent for vent in self.vents(app) if vent["id"] == bug["id"])
            self.assertEqual((now["status"], now["reply"]), ("acknowledged", "thanks, on it"))

            dismissed = albedo(app, "vents", "dismiss", workflow["id"])
            self.assertEqual(dismissed.returncode, 0, dismissed.stderr)
            now = next(vent for vent in self.vents(app) if vent["id"] == workflow["id"])
            self.assertEqual(now["status"], "dismissed")

            deleted = albedo(app, "vents", "delete", workflow["id"])
            self.assertEqual(deleted.returncode, 0, deleted.stderr)
            self.assertEqual([vent["id"] for vent in self.vents(app)], [bug["id"]])

    def test_mistakes_are_usage_errors(self):
        with Albedo(self.provider) as app:
            for args in (("vents", "reply", "1"), ("vents", "show"), ("vents", "frobnicate")):
                with self.subTest(args=args):
                    result = albedo(app, *args)
                    self.assertEqual(result.returncode, 2, result.stderr)
            missing = albedo(app, "vents", "show", "999")
            self.assertEqual(missing.returncode, 1)
            self.assertIn("999", missing.stderr)

    def test_every_new_command_has_help(self):
        with Albedo(self.provider) as app:
            for command in ("run", "attach", "console", "vents"):
                with self.subTest(command=command):
                    result = albedo(app, command, "--help")
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assertIn(f"usage: albedo {command}", result.stdout)
                    self.assertEqual(result.stdout.count("usage:"), 1, result.stdout)



class LoginTest(unittest.TestCase):
    """The key prompt does not echo; leaving it must not leave the terminal
    silent."""

    def test_ctrl_c_at_the_key_prompt_gives_the_terminal_its_echo_back(self):
        if shutil.which("tmux") is None:
            self.fail("this test needs tmux: apt-get install -y tmux")
        with Albedo() as app:
            terminal = Terminal(app, "sh")
            self.addCleanup(terminal.close)
            terminal.say(f"{BINARY} login --name spare --base-url http://127.0.0.1:9/v1 --model m; echo status:$?.")
            terminal.wait_for("API key for spare:")
            terminal.keys("C-c")
            screen = terminal.wait_for("status:130.")
            self.assertIn("interrupted; nothing was saved", screen)
            terminal.say("n=$(stty -a | tr ' ;' '\\n\\n' | grep -cx -- -echo); echo echo-off:$n.")
            terminal.wait_for("echo-off:0.", absent=("echo-off:1.",))
            config = app.home / "config.json"
            if config.exists():
                self.assertNotIn("spare", json.loads(config.read_text()).get("providers", {}))


class NewTest(unittest.TestCase):
    """``albedo new`` tells a person what it made; a script gets JSON."""

    def test_new_on_a_terminal_says_what_it_made_and_how_to_use_it(self):
        if shutil.which("tmux") is None:
            self.fail("this test needs tmux: apt-get install -y tmux")
        provider = Provider(lambda request: text("unused"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            terminal = Terminal(app, "sh")
            self.addCleanup(terminal.close)
            terminal.say(f"{BINARY} new; echo status:$?.")
            screen = terminal.wait_for("status:0.")
            session = json.loads(app.cli("sessions", "--json"))[0]["id"]
            self.assertIn(f"new session {session} in {app.workspace} (fixture · fixture-model)", screen)
            self.assertIn(f"albedo attach {session}", screen)
            self.assertNotIn("{", screen)


if __name__ == "__main__":
    unittest.main()
