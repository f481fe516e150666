"""Acceptance tests for the console, driven through tmux like a person at a
terminal: a streamed answer and a tool cell, a message queued while the
model works, an interrupt, detaching and attaching again, the vents screen,
and reconnecting after the daemon restarts.

Needs tmux (``apt-get install -y tmux``). Every wait polls the screen with a
generous deadline; nothing is timed."""

import json
import os
from pathlib import Path
import re
import shutil
import subprocess
import threading
import unittest

from harness import Albedo, LocalServer, Provider, QuietHandler, python, start_albedo, text
from scripts import by_prompt, cell_then_answer
from terminal import Terminal

BINARY = Path(os.environ.get("ALBEDO_TEST_BINARY") or Path(__file__).resolve().parent.parent / "bin" / "albedo")
"""The binary under test, as the harness chooses it."""

DEADLINE = 60
"""Seconds any one wait may take before the test gives up."""

REPO = Path(__file__).resolve().parent.parent
"""The repository: scripts/albedo.sh builds and runs albedo from it."""

PROMPT = "Message albedo"
"""The input's placeholder: the console is ready for typing."""


def user_texts(request):
    """The texts of the user messages of a Chat Completions request."""
    return [m.get("content") for m in request["messages"] if m.get("role") == "user"]


def after_tool(request):
    """Whether the request ends with a tool result (the cell ran)."""
    return request["messages"][-1].get("role") == "tool"


def latched(name):
    """Python code that waits (up to 60 s) until the test creates ``name``."""
    return (
        "import os, time\n"
        "for _ in range(1200):\n"
        f"    if os.path.exists({name!r}):\n"
        "        break\n"
        "    time.sleep(0.05)\n"
        "print('latch released')"
    )


def busy_unless(prompt, answer):
    """A model that answers a message ``prompt`` with ``answer`` and any
    other with a cell that runs for two minutes."""

    def script(request):
        if user_texts(request)[-1] == prompt:
            return text(answer)
        return python("import time\ntime.sleep(120)")

    return script


def queue_behind_a_cell(console, first, *queued):
    """Sends ``first``, waits until its cell runs, then sends each of
    ``queued`` and waits until the console shows it queued."""
    console.say(first)
    console.wait_for("running…", "· cell")
    for message in queued:
        console.say(message)
        console.wait_for("⧗ " + message)


def colours_before(screen, word):
    """The SGR parameters that set the style of the first ``word`` on a
    screen captured with colours, as a set of numbers ("" when none)."""
    found = re.search(r"((?:\x1b\[[0-9;]*m)+)" + re.escape(word), screen)
    if found is None:
        return set()
    return set(re.findall(r"\d+", found.group(1)))


def round_tokens(n):
    """A token count as the status line rounds it: 950, 84k, 1.2M."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{(n + 500) // 1000}k"
    return f"{n / 1_000_000:.1f}M"


def brief_tokens(n):
    """A token count as the status line writes totals: 950, 12.3k, 4.1M."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


class ConsoleTest(unittest.TestCase):
    """The console is a client of the daemon like any other."""

    def setUp(self):
        if shutil.which("tmux") is None:
            self.fail("the console tests need tmux: apt-get install -y tmux")

    def ready_console(self, script, *, prepare=None, ready=(PROMPT,)):
        """Starts a daemon whose fake model answers with ``script`` (its home
        set up by ``prepare``) and a console on a new session of it, and waits
        until the console shows every text of ``ready``. Returns the
        provider, the daemon and the console; the test's end stops all three."""
        provider, app = start_albedo(self.addCleanup, script, prepare=prepare)
        console = self.open(app)
        console.wait_for(*ready)
        return provider, app, console

    def open(self, app, *args) -> Terminal:
        terminal = Terminal(app, BINARY, *args)
        self.addCleanup(terminal.close)
        return terminal

    def open_command(self, app, *argv) -> Terminal:
        terminal = Terminal(app, *argv)
        self.addCleanup(terminal.close)
        return terminal

    def only_session(self, app):
        with app.api("/sessions") as response:
            sessions = json.load(response)
        self.assertEqual(len(sessions), 1, sessions)
        return sessions[0]["id"]

    def test_a_prompt_streams_its_answer_and_shows_the_cell(self):
        script = cell_then_answer("print('cell says 42')\nopen('notes.txt', 'w').write('42')",
                                  "The file holds forty-two.", reasoning="the cell printed it")
        # plain `albedo`: a console on a new session here
        provider, app, console = self.ready_console(script, ready=(PROMPT, "fixture · fixture-model", "idle"))
        console.say("what is in the file?")
        screen = console.wait_for("The file holds forty-two.", "idle")
        for expected in ("❯ what is in the file?", "⚙ python", "· ok", "print('cell says 42')",
                         "cell says 42", "+notes.txt", "∴ thinking", "ctx "):
            self.assertIn(expected, screen)
        # The cell and the turn say how long they took.
        self.assertRegex(screen, r"⚙ python #\d+ · ok · \d+(ms|\.\ds)")
        self.assertRegex(screen, r"── done in \d+(ms|\.\ds) ──")
        session = self.only_session(app)
        self.assertEqual(user_texts(provider.requests[0]["request"])[-1], "what is in the file?")
        self.assertEqual([e["type"] for e in app.events(session)][-1], "turn")

    def test_answers_are_markdown_and_python_is_highlighted(self):
        answer = (
            "## Result\n\nIt is **done**, see `notes`:\n\n- first point\n- second point\n\n"
            "| name | size |\n|------|-----:|\n| a.py | 12 |\n\n"
            "```python\ndef greet():\n    return 'hello'\n```\n"
        )

        script = cell_then_answer("import os\nprint(sorted(os.listdir('.')))", answer)
        _, app, console = self.ready_console(script)
        console.say("summarise")
        screen = console.wait_for("greet", "idle")
        for literal in ("## Result", "**done**", "```", "`notes`", "|------|", "- first"):
            self.assertNotIn(literal, screen)
        for shown in ("Result", "It is done, see notes:", "• first point", "a.py │   12", "return 'hello'"):
            self.assertIn(shown, screen)
        coloured = console.screen(colours=True)
        self.assertIn("35", colours_before(coloured, "Result"), "the heading is not coloured")
        self.assertIn("1", colours_before(coloured, "done"), "bold text is not bold")
        self.assertIn("35", colours_before(coloured, "def"), "a keyword of the answer's code is plain")
        self.assertIn("32", colours_before(coloured, "'hello'"), "a string of the answer's code is plain")
        self.assertIn("35", colours_before(coloured, "import"), "a keyword of the cell is plain")
        self.assertIn("94", colours_before(coloured, "print"), "a builtin of the cell is plain")

    def test_a_cells_value_and_the_code_in_its_traceback_are_highlighted(self):
        # Twelve rows of code fold the cell: the failing line is then on
        # screen only in the traceback.
        filler = "".join(f"step_{i} = {i}\n" for i in range(12))
        failing = filler + "def explode():\n    return {'k': 1}['missing_key']\nexplode()"

        def script(request):
            if after_tool(request):
                return text("cell ran")
            if user_texts(request)[-1] == "show a value":
                return python("{k.upper(): len(k) * 1111 for k in ['ab', 'cde']}")
            return python(failing)

        _, app, console = self.ready_console(script)
        console.say("show a value")
        console.wait_for("= {'AB': 2222, 'CDE': 3333}", "cell ran", "idle")
        coloured = console.screen(colours=True)
        self.assertIn("32", colours_before(coloured, "'AB'"), "a string of the cell's value is plain")
        self.assertIn("33", colours_before(coloured, "2222"), "a number of the cell's value is plain")
        console.say("break it")
        screen = console.wait_for("KeyError", "cell ran", "idle")
        self.assertIn("return {'k': 1}['missing_key']", screen)
        coloured = console.screen(colours=True)
        self.assertIn("35", colours_before(coloured, "return"), "a keyword of the traceback's code is plain")
        self.assertIn("32", colours_before(coloured, "'missing_key'"), "a string of the traceback's code is plain")
        self.assertIn("91", colours_before(coloured, "KeyError"), "the error is not red")

    def test_a_new_user_fills_the_form_and_talks_to_the_model(self):
        provider = Provider(lambda request: text("Hello, new user."))
        self.addCleanup(provider.close)

        def fresh(app):
            (app.home / "config.json").unlink()

        with Albedo(prepare=fresh) as app:
            # The harness gives albedo a HOME of its own: keep Go's caches.
            names = ("GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN")
            values = subprocess.run(["go", "env", *names], capture_output=True, text=True, check=True).stdout.splitlines()
            go_env = [f"{name}={value}" for name, value in zip(names, values)]
            console = self.open_command(app, "env", *go_env, "bash", REPO / "scripts" / "albedo.sh")
            # scripts/albedo.sh builds first: allow for a slow machine.
            console.wait_for("Welcome to albedo", "Base URL", "API key", deadline=600)
            for value in ("local", provider.url + "/v1"):
                console.keys("C-u")
                console.type(value)
                console.keys("Tab")
            console.keys("Tab")  # the protocol: responses, as offered
            console.keys("C-u")
            console.type("fixture-model")
            console.keys("Tab")
            console.type("sk-new-user")
            screen = console.wait_for("•" * 11)
            self.assertNotIn("sk-new-user", screen)
            console.keys("Tab")  # to Save
            console.keys("Enter")
            console.wait_for(PROMPT, "local · fixture-model", "provider saved")
            console.say("hi there")
            console.wait_for("Hello, new user.", "idle")
            config = json.loads((app.home / "config.json").read_text())
            self.assertEqual(config["active"], "local")
            self.assertEqual(config["providers"]["local"], {
                "baseUrl": provider.url + "/v1", "apiKey": "sk-new-user", "model": "fixture-model", "protocol": "responses",
            })
            self.assertEqual(provider.requests[-1]["authorization"], "Bearer sk-new-user")
            self.assertTrue(provider.requests[-1]["path"].endswith("/v1/responses"))

    def test_plain_albedo_in_the_folder_holding_it_starts_no_session_there(self):
        # As `bash scripts/albedo.sh` run from albedo's checkout: the binary
        # lies inside the current folder.
        provider, app = start_albedo(self.addCleanup, lambda request: text("unused"))
        checkout = Path(app.workspace) / "albedo-checkout"
        (checkout / "bin").mkdir(parents=True)
        for name in ("albedo", "albedo-sandbox"):
            if (BINARY.parent / name).exists():
                shutil.copy2(BINARY.parent / name, checkout / "bin" / name)
        console = self.open_command(app, "bash", "-c", f"cd {checkout} && exec ./bin/albedo")
        console.wait_for("no session was started here", "press n to start a session here anyway")
        with app.api("/sessions") as response:
            self.assertEqual(json.load(response), [])
        # n still starts one there, when asked.
        console.keys("n")
        console.wait_for(PROMPT, "albedo-checkout")
        self.only_session(app)

    def test_login_opened_again_keeps_the_saved_key(self):
        provider, app, console = self.ready_console(lambda request: text("answered"))

        def to_the_key():
            console.say("/login")
            console.wait_for("add a model provider", "API key")
            for _ in range(4):  # name, base URL, protocol, model
                console.keys("Tab")

        def save():
            console.keys("Tab")  # to Save
            console.keys("Enter")
            console.wait_for("saved provider fixture", PROMPT)

        to_the_key()
        console.type("sk-ABCDEFGHIJ")
        console.wait_for("•" * 13)
        save()
        # Opened again, the form shows no key; saving it keeps the key.
        to_the_key()
        screen = console.wait_for("add a model provider", "API key")
        self.assertNotIn("•", screen)
        save()
        config = json.loads((app.home / "config.json").read_text())
        self.assertEqual(config["providers"]["fixture"]["apiKey"], "sk-ABCDEFGHIJ")
        console.say("hello")
        console.wait_for("answered", "idle")
        self.assertEqual(provider.requests[-1]["authorization"], "Bearer sk-ABCDEFGHIJ")

    def test_a_message_sent_while_busy_is_queued(self):
        latch = "go.latch"

        def script(request):
            if any(m.get("role") == "tool" for m in request["messages"]):
                return text("saw " + " + ".join(user_texts(request)))
            return python(latched(latch))

        provider, app, console = self.ready_console(script)
        console.say("first")
        console.wait_for("running…", "· cell")
        console.say("second")
        console.wait_for("your message is queued", "⧗ second", "1 queued")
        (app.workspace / latch).write_text("")
        screen = console.wait_for("saw first + second", "idle", absent=("⧗",))
        self.assertIn("❯ second", screen)
        # the queued message reached the model after the cell's output
        last = provider.requests[-1]["request"]["messages"]
        roles = [m["role"] for m in last[-2:]]
        self.assertEqual(roles, ["tool", "user"])
        self.assertEqual(last[-1]["content"], "second")

    def test_the_activity_indicator_moves_while_a_cell_runs(self):
        latch = "spin.latch"

        script = cell_then_answer(latched(latch), "done spinning")
        _, app, console = self.ready_console(script)
        console.say("spin")
        screen = console.wait_for("running…", "· cell")
        status = next(row for row in screen.splitlines() if "· cell" in row).strip()
        self.assertRegex(status, r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running \d+s · cell \d+s")
        # The same line, a moment later, shows another frame or time.
        console.wait_for("· cell", absent=(status,))
        (app.workspace / latch).write_text("")
        screen = console.wait_for("done spinning", "idle")
        self.assertNotIn("· cell", screen)

    def test_a_running_cells_output_shows_as_it_prints(self):
        latch = "steps.latch"

        script = cell_then_answer("print('first step done', flush=True)\n" + latched(latch), "all steps done")
        _, app, console = self.ready_console(script)
        console.say("work in steps")
        # The cell still runs (it waits for the latch) and its first
        # line is on screen already, under the cell's code.
        screen = console.wait_for("├ output", "│ first step done", "running…", "· cell")
        self.assertNotIn("│ latch released", screen)
        (app.workspace / latch).write_text("")
        console.wait_for("│ first step done", "│ latch released", "all steps done", "idle")

    def test_the_status_line_names_the_sandbox_mode_and_slash_sandbox_explains_it(self):
        def read_only(app):
            (app.home / "extensions.json").write_text(json.dumps(
                {"models": {"refreshHours": 0}, "sandbox": {"mode": "read-only", "network": False}}))

        provider, app, console = self.ready_console(lambda request: text("unused"), prepare=read_only,
                                                    ready=(PROMPT, "sandbox: read-only, offline"))
        console.say("/sandbox")
        screen = console.wait_for("network: refused", "unreadable:", "kernel: not running")
        self.assertIn("sandbox: read-only (the model's Python may write only in its own temporary folder", screen)
        self.assertIn(str(app.home), screen.replace("\n", ""))
        self.assertEqual(provider.requests, [])

    def test_slash_mcp_lists_the_servers_and_approves_the_repositorys_own(self):
        def project(app):
            (app.workspace / ".git").mkdir()
            (app.workspace / ".mcp.json").write_text(json.dumps(
                {"mcpServers": {"local": {"command": "node", "args": ["tools/server.js"]}}}))

        provider, app, console = self.ready_console(lambda request: text("unused"), prepare=project)
        console.say("/mcp")
        console.wait_for("local: awaiting approval (.mcp.json, stdio) node tools/server.js", "/mcp approve local")
        console.say("/mcp approve local")
        console.wait_for("approved local (.mcp.json): node tools/server.js")
        console.say("/mcp")
        console.wait_for("local: idle (.mcp.json, stdio)")
        self.assertTrue((app.home / "mcp-approvals.json").exists())
        self.assertEqual(provider.requests, [])

    def test_the_status_line_shows_background_jobs_while_they_run(self):
        code = "j = run('while [ ! -e release ]; do sleep 0.1; done')\nprint('started job', j.id)"
        provider, app, console = self.ready_console(by_prompt({"start": python(code)}, answer="All set."))
        console.say("start a job")
        console.wait_for("started job 1", "All set.", "⚙ 1 job running", "idle")
        # The job ends unread: its end wakes the session, and once that
        # turn is over the status line no longer counts it.
        (Path(app.workspace) / "release").write_text("")
        console.wait_for("background job 1 finished", "idle", absent=("job running",))

    def test_tab_completes_a_slash_command(self):
        provider, app, console = self.ready_console(lambda request: text("unused"))
        console.type("/na")
        console.keys("Tab")
        console.wait_for("❯ /name")
        console.type("reviewer")
        console.wait_for("❯ /name reviewer")
        console.keys("Enter")
        session = self.only_session(app)
        # The typed line already holds the name: wait for the console's
        # confirmation, which it shows only once the daemon renamed it.
        console.wait_for("this session is now named reviewer")
        with app.api(f"/sessions/{session}?view=configuration") as response:
            self.assertEqual(json.load(response)["name"], "reviewer")
        self.assertEqual(provider.requests, [])

    def test_the_console_says_when_the_provider_is_retried_and_keeps_a_trace(self):
        failures = []

        def script(request):
            if len(failures) < 3:
                failures.append(1)
                raise RuntimeError("the fixture is down")
            return text("back up")

        provider, app, console = self.ready_console(script)
        console.say("are you there?")
        # The third retry waits one to two seconds: long enough to see.
        screen = console.wait_for("retrying (3/4) in ")
        status = next(row for row in screen.splitlines() if "retrying (3/4)" in row)
        self.assertRegex(status, r"retrying \(3/4\) in \d\.\d s: provider \S+ answered 500")
        screen = console.wait_for("back up", "idle")
        self.assertNotIn("retrying", screen)
        # The notice leaves a trace, whole, once the provider answered.
        self.assertRegex(screen, r"↻ retried the provider 3 times, then the provider answered; last:\s+provider \S+\s+answered 500")

    def test_a_pasted_message_shows_whole_and_is_sent_whole(self):
        _, app, console = self.ready_console(lambda request: text("got " + str(len(user_texts(request)[-1].splitlines())) + " lines"))
        console.paste("first pasted line\nsecond pasted line\nthird pasted line")
        screen = console.wait_for("third pasted line")
        rows = screen.splitlines()
        at = next(i for i, row in enumerate(rows) if "third pasted line" in row)
        self.assertIn("first pasted line", rows[at - 2], screen)
        self.assertIn("second pasted line", rows[at - 1], screen)
        console.keys("Enter")
        console.wait_for("got 3 lines", "idle")

    def test_messages_left_queued_by_an_interrupt_can_be_sent_or_dropped(self):
        _, app, console = self.ready_console(busy_unless("keep me", "got the kept message"))
        queue_behind_a_cell(console, "work", "drop me", "keep me")
        console.keys("Escape")
        console.wait_for("turn interrupted", "2 messages waiting: Enter sends · Ctrl-E edits · Ctrl-X drops")
        # Ctrl-X drops the last one; move "keep me" last by editing:
        # Ctrl-E takes it into the input, and it is sent anew.
        console.keys("C-e")
        console.wait_for("❯ keep me", "editing the last queued message", absent=("⧗ keep me",))
        console.keys("C-c")  # clear the input: "drop me" still waits
        console.keys("C-x")
        console.wait_for("dropped the last queued one", absent=("⧗ drop me",))
        console.say("keep me")  # a new message on an idle session
        console.wait_for("got the kept message", "idle")
        session = self.only_session(app)
        texts = [e["text"] for e in app.events(session) if e["type"] == "user"]
        self.assertEqual(texts, ["work", "keep me"])

    def test_a_queued_message_is_sent_now_after_an_interrupt(self):
        _, app, console = self.ready_console(busy_unless("later", "later arrived"))
        queue_behind_a_cell(console, "work", "later")
        console.keys("Escape")
        console.wait_for("turn interrupted", "1 message waiting")
        console.keys("Enter")  # empty input: send the waiting message now
        console.wait_for("later arrived", "idle", absent=("⧗",))

    def test_escape_interrupts_the_running_turn(self):
        _, app, console = self.ready_console(lambda request: python("import time\ntime.sleep(120)"))
        console.say("take your time")
        console.wait_for("running…")
        console.keys("Escape")
        console.wait_for("turn interrupted", "idle")
        session = self.only_session(app)
        with app.api(f"/sessions/{session}/status") as response:
            self.assertFalse(json.load(response)["running"])

    def test_detach_leaves_the_turn_running_and_attach_shows_everything(self):
        latch = "detach.latch"

        script = cell_then_answer(latched(latch), "finished while you were away")
        _, app, console = self.ready_console(script)
        console.say("work without me")
        console.wait_for("running…")
        console.keys("C-d")
        console.wait_gone()
        session = self.only_session(app)
        with app.api(f"/sessions/{session}/status") as response:
            self.assertTrue(json.load(response)["running"], "detaching stopped the turn")
        (app.workspace / latch).write_text("")
        app.idle(session, timeout=DEADLINE)

        again = self.open(app, "attach")  # the most recent session
        screen = again.wait_for("finished while you were away", "idle")
        for expected in ("❯ work without me", "latch released", session):
            self.assertIn(expected, screen)
        again.say("/quit")
        again.wait_gone()

    def test_attaching_to_an_idle_session_shows_its_context_at_once(self):
        def window(app):
            config = json.loads((app.home / "config.json").read_text())
            config["providers"]["fixture"]["contextWindow"] = 200000
            (app.home / "config.json").write_text(json.dumps(config))

        provider, app, console = self.ready_console(lambda request: text("hello back"), prepare=window)
        console.say("hello")
        console.wait_for("hello back", "idle", "ctx ")
        console.keys("C-d")
        console.wait_gone()
        session = self.only_session(app)
        with app.api(f"/sessions/{session}/context") as response:
            context = json.load(response)
        with app.api(f"/sessions/{session}?tail=0") as response:
            usage = json.load(response)["session"]["usage"]
        self.assertEqual(context["window"], 200000)
        figure = (f"ctx {context['percent']:.0f}% · {round_tokens(context['used'])}/200k · "
                  f"{brief_tokens(usage['input_tokens'])} in · {brief_tokens(usage['output_tokens'])} out")

        # No request runs after attaching: the figure comes from the
        # daemon's measure, not from a live status event.
        again = self.open(app, "attach", session)
        screen = again.wait_for("hello back", "idle", figure)
        self.assertEqual(len(provider.requests), 1, screen)
        again.say("/quit")
        again.wait_gone()

    def test_a_vent_is_answered_from_the_vents_screen(self):
        def script(request):
            if after_tool(request):
                return text("vent filed")
            if user_texts(request)[-1] == "complain":
                return python("await vent('harness', 'the fixture is slow', suggestion='cache the fixture')")
            return text("noted")

        _, app, console = self.ready_console(script)
        console.say("complain")
        console.wait_for("vent filed", "idle")
        # The session's title follows its latest message; the vent
        # keeps the one it had when it filed.
        console.say("moving on")
        console.wait_for("noted", "idle")
        console.say("/vents")
        # "1 vent, 1 open" is the ledger's own line: the session screen
        # shows the vent's text too, until the console has switched.
        screen = console.wait_for("the fixture is slow", "cache the fixture", "1 vent, 1 open")
        self.assertIn("harness", screen)
        session = self.only_session(app)
        # The detail pane may wrap the label: compare without the breaks.
        flat = " ".join(re.sub(r"[│┃|]", " ", screen).split())
        self.assertIn(f"“complain” ({session}, now “moving on”)", flat)
        with app.api("/extensions/paperclips/items") as response:
            self.assertEqual(json.load(response)["items"][0]["value"]["session_title"], "complain")
        console.type("r")
        console.wait_for("reply to #")
        console.type("cached it for you")
        # Enter goes once the field shows every typed key.
        console.wait_for("reply to #", ": cached it for you")
        console.keys("Enter")
        console.wait_for("replied to #", "acknowledged", "cached it for you")
        with app.api("/extensions/paperclips/items") as response:
            vent = json.load(response)["items"][0]["value"]
        self.assertEqual((vent["status"], vent["reply"]), ("acknowledged", "cached it for you"))
        console.keys("Escape")
        console.wait_for(PROMPT, "vent filed")

    def test_the_console_reconnects_after_a_daemon_restart(self):
        provider, app, console = self.ready_console(lambda request: text(f"answer {len(provider.requests)}"))
        console.say("before")
        console.wait_for("answer 1", "idle")
        app.restart()
        console.wait_for("reconnected to the daemon", "answer 1")
        console.say("after")
        screen = console.wait_for("answer 2", "idle")
        self.assertIn("❯ before", screen)
        self.assertIn("❯ after", screen)


    def test_an_attached_console_shows_the_restart_note_before_the_resumed_answer(self):
        streaming = threading.Event()
        release = threading.Event()
        self.addCleanup(release.set)

        class Handler(QuietHandler):
            """A model that streams half an answer and hangs, until it is
            told of the restart: then it answers whole."""

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                resumed = any("albedo restarted" in str(m.get("content")) for m in request["messages"])
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()

                def send(delta, finish=None):
                    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "fixture-model",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()

                if not resumed:
                    send({"role": "assistant", "content": "half an ans"})
                    streaming.set()
                    release.wait(DEADLINE)
                    return
                send({"role": "assistant", "content": "resumed answer"})
                send({}, "stop")
                self.wfile.write(b"data: [DONE]\n\n")

        server = LocalServer(Handler)
        self.addCleanup(server.close)
        app = Albedo(server)
        app.__enter__()
        self.addCleanup(app.__exit__, None, None, None)
        console = self.open(app)
        console.wait_for(PROMPT)
        console.say("answer slowly")
        console.wait_for("half an ans")
        self.assertTrue(streaming.wait(DEADLINE))
        app.restart(crash=True)
        screen = console.wait_for("resumed answer", "idle")
        self.assertNotIn("half an ans", screen)
        rows = screen.splitlines()
        note = next((i for i, row in enumerate(rows) if "from daemon restart" in row), None)
        self.assertIsNotNone(note, screen)
        answer = next(i for i, row in enumerate(rows) if "resumed answer" in row)
        self.assertLess(note, answer, "the restart note shows after the resumed answer:\n" + screen)
        # No cell ran: the note does not speak of one.
        self.assertNotIn("python cell", screen)
        session = self.only_session(app)
        seq = next(e["seq"] for e in app.events(session) if e["type"] == "user" and e.get("source") == "daemon restart")
        self.assertIn(f"#{seq}", "\n".join(rows[note:answer]), "the restart note has no number:\n" + screen)

if __name__ == "__main__":
    unittest.main()
