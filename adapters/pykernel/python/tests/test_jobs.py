"""Background jobs: run(), jobs(), the job frames the daemon counts on, and
their end with the kernel."""

import os
import signal
import unittest

from kernelproc import KernelTestCase, gone, wait_until


class JobsTest(KernelTestCase):
    def fifo(self, name="gate"):
        """A FIFO a job blocks on until the test writes to it."""
        path = self.path(name)
        os.mkfifo(path)
        return path

    def open_gate(self, path, text="go\n"):
        with open(path, "w") as f:
            f.write(text)

    def job_frames(self, events, until):
        """The job frames among a cell's events and those that follow,
        until one of type until has come."""
        frames = [e for e in events if e["type"].startswith("job_")]
        while until not in [f["type"] for f in frames]:
            frames.append(self.kernel.next_event())
        return frames

    def test_a_job_read_in_its_cell_reports_started_and_ended_but_no_wake(self):
        done, output, events = self.kernel.ok("job = run('echo hello; exit 3')\ncode = await job\n(job.id, code, job.exit_code, job.running)")
        self.assertEqual(done["value"], "(1, 3, 3, False)")
        self.assertEqual(output, "")  # a job's output never goes to the cell
        # The job's end may reach the daemon after the cell that awaited it.
        started, ended = self.job_frames(events, "job_ended")
        self.assertEqual((started["type"], ended["type"]), ("job_started", "job_ended"))
        self.assertEqual((started["job"], ended["job"], ended["exit"], ended["wakes"]), (1, 1, 3, False))
        self.assertGreater(started["pid"], 0)
        self.assertTrue(started["dir"].startswith(self.tmp + os.sep), started["dir"])
        done, _, later = self.kernel.ok("job.tail()")
        self.assertEqual(done["value"], "'hello'")
        self.assertEqual(later, [])  # no wake: the cell read the job's end

    def test_a_job_nobody_read_wakes_the_session_when_it_ends(self):
        gate = self.fifo()
        _, _, events = self.kernel.ok("job = run(['sh', '-c', 'read line < %s; echo done; exit 5'])" % gate)
        self.assertEqual([e["type"] for e in events], ["job_started"])
        self.open_gate(gate)
        ended = self.kernel.next_event("job_ended")
        wake = self.kernel.next_event("job_wake")
        # The end says a wake follows, so the daemon counts the job until it
        # has taken the wake.
        self.assertEqual((ended["job"], ended["exit"], ended["wakes"]), (1, 5, True))
        self.assertEqual((wake["job"], wake["exit"]), (1, 5))
        self.assertGreaterEqual(wake["duration_ms"], 0)
        self.assertEqual(self.kernel.value("(jobs()[1].exit_code, jobs()[1].tail())"), "(5, 'done')")

    def test_a_job_ending_during_a_cell_that_reads_it_wakes_nobody(self):
        gate = self.fifo()
        self.kernel.ok("job = run(['sh', '-c', 'read line < %s; exit 0'])" % gate)
        request = self.kernel.start_cell("print('waiting', flush=True)\njob.wait()")
        self.kernel.wait_output("waiting")
        self.open_gate(gate)
        done, _, events = self.kernel.finish_cell(request)
        self.assertEqual(done["value"], "0")
        self.assertEqual([e["type"] for e in events], ["job_ended"])
        self.kernel.ok("1")  # a wake would have come before this cell's frames
        self.assertTrue(self.kernel.events.empty())

    def test_a_job_ending_during_a_cell_that_does_not_read_it_wakes_the_session(self):
        gate = self.fifo()
        self.kernel.ok("job = run(['sh', '-c', 'read line < %s; exit 0'])" % gate)
        _, _, events = self.kernel.ok("import os\nwith open(%r, 'w') as f:\n    f.write('go\\n')\nwhile job.running:\n    os.sched_yield()" % gate)
        frames = self.job_frames(events, "job_wake")
        self.assertEqual([(f["type"], f["job"], f.get("wakes")) for f in frames], [("job_ended", 1, False), ("job_wake", 1, None)])

    def test_stop_ends_the_whole_process_group(self):
        _, _, events = self.kernel.ok("job = run('sleep 3600 & echo $!; wait')")
        pid = events[0]["pid"]
        wait_until(lambda: self.kernel.value("job.tail()") != "''", "the job's child pid")
        child = int(self.kernel.value("job.tail()").strip("'"))
        self.assertEqual(self.kernel.value("job.stop()"), str(-signal.SIGTERM))
        self.assertEqual(self.kernel.value("(job.running, job.exit_code)"), "(False, %d)" % -signal.SIGTERM)
        wait_until(lambda: gone(child), "the job's child to end")
        wait_until(lambda: gone(pid), "the job's shell to end")

    def test_a_timeout_stops_the_job(self):
        _, _, events = self.kernel.ok("job = run(['sleep', '3600'], timeout=0.05)")
        ended = self.kernel.next_event("job_ended")
        self.assertEqual(ended["exit"], -signal.SIGTERM)

    def test_env_is_added_and_cwd_is_honoured(self):
        os.mkdir(self.path("sub"))
        value = self.kernel.value("job = run('echo $GREETING; pwd', cwd='sub', env={'GREETING': 'hi'})\nawait job\njob.tail()")
        self.assertEqual(value, repr("hi\n" + self.path("sub")))

    def test_jobs_lists_them_by_id(self):
        self.assertEqual(self.kernel.value("a = run('true'); b = run('true'); await a; await b\nsorted(jobs())"), "[1, 2]")
        self.assertIn("<job 1 pid", self.kernel.value("repr(jobs()[1])"))

    def test_an_awaited_job_reports_its_end_before_the_cell_is_done(self):
        # The daemon and the cells see one order: a job the cell awaited
        # has ended before the cell has.
        for attempt in range(30):
            _, _, events = self.kernel.ok("await run('true')")
            kinds = [e["type"] for e in events]
            self.assertEqual(kinds, ["job_started", "job_ended"], (attempt, events))

    def test_bad_arguments_are_refused_before_anything_starts(self):
        for code, exception in (("run(42)", "TypeError"), ("run([])", "TypeError"), ("run('true', timeout=0)", "ValueError")):
            done, _, events = self.kernel.run(code)
            self.assertEqual(done["exception"], exception, code)
            self.assertEqual(events, [], code)

    def test_the_spool_keeps_the_last_lines_within_a_mebibyte(self):
        # Three MiB of numbered lines: the spool's two halves keep the end.
        done, _, events = self.kernel.ok(
            "job = run(['python3', '-c', 'import sys\\nfor i in range(300000): sys.stdout.write(\"line %09d\\\\n\" % i)'])\n"
            "await job\njob.tail(2)"
        )
        self.assertEqual(done["value"], repr("line 000299998\nline 000299999"))
        folder = os.path.join(events[0]["dir"], "1")
        sizes = [os.path.getsize(os.path.join(folder, name)) for name in sorted(os.listdir(folder))]
        self.assertLessEqual(sum(sizes), 1 << 20, sizes)

    def test_the_spool_is_not_in_the_trace(self):
        done, _, _ = self.kernel.ok("job = run('echo x'); await job")
        self.assertEqual(done["trace"], {"activities": [], "changes": []})
        self.assertTrue(os.listdir(self.tmp))  # the spool folder was made there

    def test_a_kernel_whose_daemon_is_gone_kills_its_jobs(self):
        _, _, events = self.kernel.ok("job = run(['sleep', '3600'])")
        pid = events[0]["pid"]
        self.assertFalse(gone(pid))
        self.kernel.close_control()
        self.kernel.wait_exit()
        wait_until(lambda: gone(pid), "the job to be killed with its kernel")


class ImagesTest(KernelTestCase):
    PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"

    def test_show_image_sends_the_image_with_the_cell(self):
        import base64

        done, _, events = self.kernel.ok("show_image(%r)" % self.PNG)
        self.assertEqual([e["type"] for e in events], ["image"])
        self.assertEqual(events[0]["id"], done["id"])
        self.assertEqual(events[0]["mime"], "image/png")
        self.assertEqual(base64.b64decode(events[0]["data"]), self.PNG)

    def test_a_path_works_and_a_wrong_mime_or_non_image_is_refused(self):
        with open(self.path("dot.png"), "wb") as f:
            f.write(self.PNG)
        _, _, events = self.kernel.ok("show_image('dot.png', mime='image/png')")
        self.assertEqual(events[0]["mime"], "image/png")
        for code in ("show_image('dot.png', mime='image/gif')", "show_image(b'plain text')"):
            done, _, events = self.kernel.run(code)
            self.assertEqual((done["exception"], events), ("ValueError", []), code)

    def test_a_cell_shows_at_most_four(self):
        done, _, events = self.kernel.run("for _ in range(5):\n    show_image(%r)" % self.PNG)
        self.assertEqual(done["exception"], "ValueError")
        self.assertIn("at most 4 images", done["error"])
        self.assertEqual(len(events), 4)


if __name__ == "__main__":
    unittest.main()
