"""The frame protocol between the daemon and the kernel, and what a cell
returns."""

import json
import os
import signal
import sys
import unittest

from kernelproc import KernelTestCase, frame, gone, wait_until


class StartTest(KernelTestCase):
    def test_the_kernel_says_ready_with_its_pid_python_and_executable(self):
        ready = self.kernel.ready
        self.assertEqual(ready["pid"], self.kernel.pid)
        self.assertEqual(ready["python"], "%d.%d.%d" % sys.version_info[:3])
        self.assertEqual(os.path.realpath(ready["executable"]), os.path.realpath(sys.executable))

    def test_a_cell_sees_the_helpers_and_none_of_the_bootstrap(self):
        names = json.loads(self.kernel.value("import json as _j; _j.dumps(sorted(n for n in globals() if not n.startswith('__')))").strip("'"))
        for helper in ("HostError", "_host", "jobs", "run", "show_image"):
            self.assertIn(helper, names)
        self.assertNotIn("sys", names)
        self.assertNotIn("_albedo_kernel", names)

    def test_the_kernel_runs_in_the_workspace_with_stdin_empty(self):
        self.assertEqual(self.kernel.value("import os; os.getcwd()"), repr(self.ws))
        done, _, _ = self.kernel.run("input()")
        self.assertEqual(done["status"], "error")
        self.assertEqual(done["exception"], "EOFError")


class CellTest(KernelTestCase):
    def test_each_run_is_started_then_done_with_its_id(self):
        first = self.kernel.start_cell("1")
        done, _, others = self.kernel.finish_cell(first)
        self.assertEqual((done["id"], done["status"], others), (first["id"], "ok", []))
        second = self.kernel.start_cell("2")
        self.assertEqual(self.kernel.finish_cell(second)[0]["id"], second["id"])

    def test_output_goes_to_stdout_before_the_marker_and_the_value_is_reported(self):
        done, output, _ = self.kernel.ok("print('out'); import sys; print('err', file=sys.stderr); 6 * 7")
        self.assertEqual(output, "out\nerr\n")
        self.assertEqual(done["value"], "42")
        self.assertTrue(done["marked"])

    def test_a_final_expression_that_is_none_has_no_value(self):
        done, output, _ = self.kernel.ok("x = 1\nNone")
        self.assertNotIn("value", done)
        self.assertEqual(output, "")

    def test_globals_persist_between_cells(self):
        self.kernel.ok("counter = 41\ndef bump():\n    global counter\n    counter += 1")
        self.kernel.ok("bump()")
        self.assertEqual(self.kernel.value("counter"), "42")

    def test_top_level_await_runs_on_one_persistent_loop(self):
        self.kernel.ok("import asyncio\nasync def twice(x):\n    await asyncio.sleep(0)\n    return 2 * x")
        self.assertEqual(self.kernel.value("await twice(21)"), "42")
        self.kernel.ok("await asyncio.sleep(0)\nfirst = id(asyncio.get_running_loop())")
        self.assertEqual(self.kernel.value("await asyncio.sleep(0, id(asyncio.get_running_loop()) == first)"), "True")

    def test_an_error_reports_the_traceback_from_the_cell_without_kernel_frames(self):
        self.kernel.ok("def inner():\n    raise ValueError('bad value')")
        done, output, _ = self.kernel.run("x = 1\ninner()")
        self.assertEqual(done["status"], "error")
        self.assertEqual(done["exception"], "ValueError")
        self.assertIn("ValueError: bad value", done["error"])
        self.assertIn("<cell 2>", done["error"])
        self.assertIn("inner()", done["error"])  # the cell's source line, through linecache
        self.assertNotIn("<albedo-kernel", done["error"])
        self.assertEqual(output, "")

    def test_a_syntax_error_is_an_error_result(self):
        done, _, _ = self.kernel.run("def (:")
        self.assertEqual((done["status"], done["exception"]), ("error", "SyntaxError"))

    def test_value_and_error_are_clipped_to_the_limit_keeping_head_and_tail(self):
        done, _, _ = self.kernel.ok("'a' * 500 + 'b' * 500", limit=100)
        value = done["value"]
        self.assertTrue(value.startswith("'" + "a" * 49), value)
        self.assertTrue(value.endswith("b" * 49 + "'"), value)
        self.assertIn("[... 902 characters cut ...]", value)
        done, _, _ = self.kernel.run("raise ValueError('x' * 1000)", limit=100)
        self.assertIn("characters cut", done["error"])

    def test_a_cell_naming_another_workspace_moves_the_kernel_there(self):
        other = self.path("other")
        os.mkdir(other)
        self.assertEqual(self.kernel.value("import os; os.getcwd()", cwd=other), repr(other))
        done, _, _ = self.kernel.run("1", cwd=self.path("missing"))
        self.assertEqual(done["status"], "error")
        self.assertIn("cannot enter the workspace " + self.path("missing"), done["error"])
        self.assertEqual(done["trace"], {"activities": [], "changes": []})

    def test_a_workspace_module_never_replaces_what_the_kernel_imports(self):
        with open(self.path("traceback.py"), "w") as f:
            f.write("raise SystemExit('the workspace traceback.py was imported')\n")
        done, _, _ = self.kernel.run("1/0")
        self.assertEqual(done["exception"], "ZeroDivisionError")
        self.assertIn("ZeroDivisionError", done["error"])

    def test_a_cell_that_moves_its_stdout_is_not_marked(self):
        done, _, _ = self.kernel.run("import os\nos.dup2(os.open(os.devnull, os.O_WRONLY), 1)")
        self.assertFalse(done["marked"])


class ChannelTest(KernelTestCase):
    def test_a_request_of_another_type_is_ignored(self):
        self.kernel.send({"type": "nonsense", "id": 99})
        self.kernel.send({"type": "reply", "id": 12345, "result": 1})  # no call has that id
        self.assertEqual(self.kernel.value("'still here'"), "'still here'")

    def test_requests_queue_and_run_in_order(self):
        first = self.kernel.start_cell("order = [1]")
        done, _, _ = self.kernel.finish_cell(first)
        requests = []
        for code in ("order.append(2)", "order.append(3)"):
            request = {"type": "run", "id": 100 + len(requests), "code": code, "cwd": self.ws, "marker": "\n<<m%d>>\n" % len(requests), "limit": 1000}
            requests.append(request)
        self.kernel.send(b"".join(frame(r) for r in requests))
        for request in requests:
            self.assertEqual(self.kernel.next_event("started")["id"], request["id"])
            self.assertEqual(self.kernel.finish_cell(request)[0]["status"], "ok")
        self.assertEqual(self.kernel.value("order"), "[1, 2, 3]")

    def test_a_closed_control_pipe_ends_the_kernel(self):
        self.kernel.close_control()
        status = self.kernel.wait_exit()
        self.assertTrue(os.WIFSIGNALED(status) or os.WEXITSTATUS(status) == 0, status)

    def test_a_frame_that_is_not_json_ends_the_kernel(self):
        self.kernel.send(frame(b"{not json"))
        self.kernel.wait_exit()


class InterruptTest(KernelTestCase):
    def test_sigint_interrupts_a_busy_cell_and_the_next_cell_runs(self):
        request = self.kernel.start_cell("print('looping', flush=True)\nwhile True:\n    pass")
        self.kernel.wait_output("looping")
        os.kill(self.kernel.pid, signal.SIGINT)
        done, output, _ = self.kernel.finish_cell(request)
        self.assertEqual((done["status"], done["exception"]), ("error", "KeyboardInterrupt"))
        self.assertEqual(output, "looping\n")
        self.assertEqual(self.kernel.value("'after'"), "'after'")

    def test_sigint_cancels_an_awaiting_cell_which_never_resumes(self):
        request = self.kernel.start_cell(
            "import asyncio\nresumed = False\nprint('waiting', flush=True)\nawait asyncio.sleep(3600)\nresumed = True"
        )
        self.kernel.wait_output("waiting")
        os.kill(self.kernel.pid, signal.SIGINT)
        done, _, _ = self.kernel.finish_cell(request)
        self.assertEqual(done["exception"], "KeyboardInterrupt")
        self.assertIn("<cell 1>", done["error"])  # where the cell stood
        self.assertEqual(self.kernel.value("await asyncio.sleep(0, resumed)"), "False")

    def test_sigint_between_cells_is_ignored(self):
        self.kernel.ok("1")
        os.kill(self.kernel.pid, signal.SIGINT)
        self.assertEqual(self.kernel.value("'alive'"), "'alive'")
        self.assertFalse(gone(self.kernel.pid))


if __name__ == "__main__":
    unittest.main()
