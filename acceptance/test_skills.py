"""Agent Skills: folders holding a SKILL.md in the workspace's
.agents/skills, .claude/skills and .albedo/skills and in ALBEDO_HOME/skills.
The instructions name each skill with its description, the same bytes in
every request; the model reads a body through skills.read when it needs it;
a user starts one with /NAME in the console or albedo run --skill NAME."""

import json
import os
from pathlib import Path
import shutil
import unittest

from harness import Albedo, Provider, http_error, python, read, text, turn
from terminal import Terminal

BINARY = Path(os.environ.get("ALBEDO_TEST_BINARY") or Path(__file__).resolve().parent.parent / "bin" / "albedo")

LISTED = (
    "- deploy: Ships a release.\n"
    "- lint: Lints the code with the house rules.\n"
    "- notes: Keeps release notes.\n"
    "</skills>"
)
"""The end of the skills block of the instructions."""

DEPLOY = 'ship v2\n\n<skill name="deploy" source=".claude/skills/deploy/SKILL.md">\nDEPLOY-BODY: tag, build, push\n</skill>'
"""The user message /deploy ship v2 sends."""


def skill(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def lay_out(app: Albedo) -> None:
    """Two skills in the workspace, one in ALBEDO_HOME, each shadowing
    another of its name, and two that are skipped."""
    files = {
        app.workspace / ".agents/skills/lint/SKILL.md": skill("lint", "Lints the code with the house rules.", "LINT-BODY: run the linter"),
        app.workspace / ".claude/skills/lint/SKILL.md": skill("lint", "An older lint.", "OLD-LINT-BODY"),
        app.workspace / ".claude/skills/deploy/SKILL.md": skill("deploy", "Ships a release.", "DEPLOY-BODY: tag, build, push"),
        app.workspace / ".albedo/skills/notes/SKILL.md": skill("notes", "The project's notes.", "PROJECT-NOTES-BODY"),
        app.workspace / ".agents/skills/big/SKILL.md": skill("big", "Too big.", "x" * (2 << 20)),
        app.workspace / ".agents/skills/latin/SKILL.md": skill("latin", "caf\udce9", "LATIN-BODY"),
        app.home / "skills/notes/SKILL.md": skill("notes", "Keeps release notes.", "NOTES-BODY"),
        app.home / "skills/notes/template.md": "TEMPLATE-TEXT",
    }
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8", "surrogateescape"))


def instructions_of(request: dict) -> str:
    first = request["messages"][0]
    return first["content"] if first.get("role") == "system" else ""


def user_texts(request: dict) -> list:
    return [m.get("content") for m in request["messages"] if m.get("role") == "user"]


class Script:
    def __init__(self, *replies):
        self.replies = list(replies)

    def __call__(self, request):
        return self.replies.pop(0) if self.replies else text("done")


class SkillsTest(unittest.TestCase):
    def setUp(self):
        self.script = Script()
        self.provider = Provider(self.script)
        self.addCleanup(self.provider.close)
        self.app = Albedo(self.provider, prepare=lay_out)
        self.app.__enter__()
        self.addCleanup(self.app.__exit__, None, None, None)

    def test_named_in_the_instructions_read_on_demand(self):
        app = self.app
        direct = str(app.home / "skills/notes/SKILL.md")
        self.script.replies += [
            python("print(await skills.read('notes'))\nprint(await skills.files('notes'))\nprint(await skills.read('notes', 'template.md'))\n"
                   f"try:\n    open({direct!r}).read()\n    print('DIRECT-READ')\nexcept OSError:\n    print('DIRECT-REFUSED')"),
            text("read it"),
        ]
        session = app.session()
        start = len(self.provider.requests)
        turn(app, session, "hello")
        turn(app, session, "again")
        requests = [r["request"] for r in self.provider.requests[start:]]
        self.assertEqual(len(requests), 3)
        first = instructions_of(requests[0])
        self.assertIn(LISTED, first)
        self.assertIn("await skills.read(name)", first)
        # The same bytes in every request of a turn; from turn to turn the
        # skills block too (the environment block before it names the
        # kernel's Python once it has started).
        self.assertEqual(instructions_of(requests[1]), first)
        block = first[first.index("<skills>"):]
        self.assertTrue(instructions_of(requests[2]).endswith(block))
        sent = [json.dumps(r) for r in requests]
        self.assertNotIn("-BODY", sent[0])
        # The cell read the user's own skill, which the sandbox hides from it.
        self.assertIn("NOTES-BODY", sent[1])
        self.assertIn("['SKILL.md', 'template.md']", sent[1])
        self.assertIn("TEMPLATE-TEXT", sent[1])
        # Unless this machine cannot hide the home, the cell could not
        # open the user's own SKILL.md itself.
        health = read(app, "/health")
        if "hidden_reads" in health["sandbox"]["enforced"]:
            self.assertIn("DIRECT-REFUSED", sent[1])
        for body in ("LINT-BODY", "DEPLOY-BODY", "PROJECT-NOTES-BODY", "LATIN-BODY", "xxxxxxxx"):
            self.assertFalse(any(body in s for s in sent), body)

        context = read(app, f"/sessions/{session}/context")
        self.assertEqual([(s["name"], s["source"]) for s in context["skills"]], [
            ("notes", "ALBEDO_HOME/skills/notes/SKILL.md"),
            ("lint", ".agents/skills/lint/SKILL.md"),
            ("deploy", ".claude/skills/deploy/SKILL.md"),
        ])
        glances = [g for g in read(app, f"/sessions/{session}?tail=0")["glances"] if g["extension"] == "instructions"]
        warnings = sorted(glances[0]["warnings"])
        self.assertEqual(warnings, [
            ".agents/skills/big/SKILL.md was skipped: it is over 1 MiB",
            ".agents/skills/latin/SKILL.md was skipped: it is not UTF-8 text",
            ".albedo/skills/notes/SKILL.md was skipped: the skill notes of ALBEDO_HOME/skills/notes/SKILL.md comes first",
            ".claude/skills/lint/SKILL.md was skipped: the skill lint of .agents/skills/lint/SKILL.md comes first",
        ])

    def test_the_skill_command_sends_the_body_with_the_message(self):
        app = self.app
        session = app.session()
        with app.api(f"/sessions/{session}/commands", {"name": "/skill", "args": {"skill": "deploy", "text": "ship v2"}}) as response:
            self.assertEqual(json.load(response)["result"], {"skill": "deploy", "source": ".claude/skills/deploy/SKILL.md", "queued": False})
        app.idle(session)
        self.assertEqual(user_texts(self.provider.requests[-1]["request"])[-1], DEPLOY)
        status, body = http_error(self, lambda: app.api(f"/sessions/{session}/commands", {"name": "/skill", "args": {"skill": "nope"}}))
        self.assertEqual(status, 404)
        self.assertIn("no skill is named nope: the skills offered are deploy, lint, notes", body["error"])

    def test_run_with_a_skill(self):
        app = self.app
        out = app.cli("run", "--skill", "deploy", "ship v2")
        self.assertIn("done", out)
        self.assertEqual(user_texts(self.provider.requests[-1]["request"])[-1], DEPLOY)

    def test_slash_name_in_the_console_starts_it(self):
        if shutil.which("tmux") is None:
            self.fail("the console tests need tmux: apt-get install -y tmux")
        console = Terminal(self.app, BINARY)
        self.addCleanup(console.close)
        console.wait_for("Message albedo")
        console.say("/deploy ship v2")
        console.wait_for("done", "idle")
        self.assertEqual(user_texts(self.provider.requests[-1]["request"])[-1], DEPLOY)
        console.say("/nosuch")
        console.wait_for("unknown command /nosuch", "no skill is named nosuch")


if __name__ == "__main__":
    unittest.main()
