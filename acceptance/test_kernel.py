"""The Python tool as the model meets it: a persistent REPL per session."""

from __future__ import annotations

import json
import os
import unittest

from harness import cell_result, kernel_processes, python, start_albedo, text, wait_gone, wait_until
from scripts import by_prompt, outputs_since_user


def started(pid: int) -> int:
    """When process pid started, in clock ticks since boot: the same seen
    from inside a kernel's PID namespace and from outside."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except OSError:
        return 0  # gone


def gone(pid: int, seconds: float = 10) -> bool:
    """Whether the process exits within seconds (a zombie has exited)."""
    return wait_gone(pid, seconds)


class KernelTest(unittest.TestCase):
    def start(self, replies, **kwargs):
        provider, app = start_albedo(self.addCleanup, by_prompt(replies), **kwargs)
        self.providers = getattr(self, "providers", []) + [provider]
        return app

    def turn(self, app, session, prompt):
        return cell_result(app, session, prompt)

    def test_globals_live_as_long_as_their_session_and_no_longer(self):
        app = self.start({"remember": python("answer = 41"), "recall": python("print(answer + 1)")})
        first, second = app.session(), app.session()
        self.assertEqual(self.turn(app, first, "remember a number")["status"], "ok")
        recalled = self.turn(app, first, "recall it")
        self.assertEqual((recalled["status"], recalled["output"].strip()), ("ok", "42"))
        elsewhere = self.turn(app, second, "recall it")
        self.assertEqual(elsewhere["status"], "error")
        self.assertIn("NameError", elsewhere.get("error", "") + elsewhere.get("output", ""))

    def test_a_cell_that_never_ends_times_out_and_the_next_cell_runs(self):
        app = self.start({
            "forever": python("while True:\n    pass", timeout_ms=500),
            "check": python("print('still here')"),
        })
        session = app.session()
        self.assertEqual(self.turn(app, session, "spin forever")["status"], "timeout")
        after = self.turn(app, session, "check the kernel")
        self.assertEqual((after["status"], after["output"].strip()), ("ok", "still here"))

    def test_a_flood_of_output_is_capped(self):
        app = self.start({"flood": python("import sys\nfor _ in range(100):\n    sys.stdout.write('x' * 1_000_000)")})
        session = app.session()
        result = self.turn(app, session, "flood the output")
        self.assertEqual(result["status"], "ok")
        self.assertLess(len(result["output"]), 1_000_000)
        self.assertGreater(len(result["output"]), 1000)

    def test_a_cell_that_kills_its_interpreter_is_an_error_and_the_kernel_comes_back(self):
        app = self.start({"die": python("import os\nos._exit(3)"), "revive": python("print('back')")})
        session = app.session()
        died = self.turn(app, session, "die now")
        self.assertEqual(died["status"], "error")
        revived = self.turn(app, session, "revive")
        self.assertEqual((revived["status"], revived["output"].strip()), ("ok", "back"))

    def test_input_fails_instead_of_hanging(self):
        app = self.start({"ask": python("input('your name? ')")})
        session = app.session()
        result = self.turn(app, session, "ask the user")
        self.assertEqual(result["status"], "error")
        self.assertIn("EOF", result.get("error", "") + result.get("output", ""))

    def test_secrets_never_reach_the_kernel(self):
        planted = {"OPENAI_API_KEY": "sk-planted", "ALBEDO_SECRET_TOKEN": "planted", "GITHUB_TOKEN": "planted"}
        saved = {name: os.environ.get(name) for name in planted}
        os.environ.update(planted)
        try:
            app = self.start({"env": python("import os\nprint(sorted(k for k in os.environ if 'KEY' in k or 'TOKEN' in k or k.startswith('ALBEDO')))\nprint('fixture-key' in repr(dict(os.environ)))")})
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        session = app.session()
        result = self.turn(app, session, "show the env")
        self.assertEqual(result["status"], "ok")
        self.assertEqual(result["output"].split(), ["[]", "False"])

    def test_an_idle_kernel_is_stopped_and_the_model_told(self):
        os.environ["ALBEDO_IDLE_SECONDS"] = "1"
        try:
            app = self.start({"remember": python("import os\nanswer = 41\nprint(os.getpid())"), "recall": python("print('answer' in globals())")})
        finally:
            del os.environ["ALBEDO_IDLE_SECONDS"]
        session = app.session()
        self.turn(app, session, "remember a number")
        (pid,) = kernel_processes(app.workspace)
        self.assertTrue(gone(pid, 15), "the idle kernel kept running")
        recalled = self.turn(app, session, "recall it")
        self.assertEqual(recalled["output"].strip(), "False")
        users = [e for e in app.history(session)["items"] if e["kind"] == "user"]
        self.assertEqual(users[-1]["text"], "recall it")
        provider = self.providers[-1]
        told = [r for r in provider.requests if "recall it" in json.dumps(r["request"])]
        self.assertIn("The python kernel", json.dumps(told[0]["request"]))

    def test_no_kernel_outlives_the_daemon(self):
        app = self.start({"pid": python("import os\nprint(os.getpid())")})
        session = app.session()
        for crash in (False, True):
            with self.subTest(crash=crash):
                self.turn(app, session, "which pid")
                (pid,) = kernel_processes(app.workspace)
                app.restart(crash=crash)
                self.assertTrue(gone(pid), f"kernel {pid} survived the daemon (crash={crash})")

    def test_the_kernel_starts_while_the_model_answers(self):
        """The first request of a turn finds the session's kernel starting
        or started (a python process running albedo's kernel program in
        its workspace) before any cell exists, and the first cell runs in
        that very process."""
        seen = {}
        workspace = {}

        def kernels():
            return {started(pid): pid for pid in kernel_processes(workspace["path"])}

        def script(request):
            if outputs_since_user(request):
                return text("done")
            wait_until(kernels, 60, interval=0.01)
            seen["before"] = kernels()
            return python("print(open('/proc/self/stat').read().rsplit(')', 1)[1].split()[19])")

        _, app = start_albedo(self.addCleanup, script)
        workspace["path"] = os.path.realpath(app.workspace)
        session = app.session()
        began = int(self.turn(app, session, "which process")["output"])
        self.assertTrue(seen.get("before"), "no kernel was starting while the model answered")
        self.assertIn(began, seen["before"], f"the cell ran in a process started at {began}, not in the kernel warmed before it {seen['before']}")

if __name__ == "__main__":
    unittest.main()
