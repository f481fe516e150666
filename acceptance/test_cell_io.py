"""The python tool, part 2: live output, background jobs that wake the
session, and images the model looks at."""

from __future__ import annotations

import base64
import json
import os
import struct
import unittest
import zlib
from unittest import mock

from harness import EventStream, processes, python, python_results, start_albedo, text, turn, wait_until
from scripts import contents, inputs_of, latest_user, outputs_since_user

RESTART_NOTE = "albedo restarted while this cell was running; it was not run again"


def png(width: int, height: int) -> bytes:
    """A valid PNG of width×height transparent pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x00\x00\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def script(replies, *, answer="done"):
    """Answers the first user message that contains a key with its reply,
    a message from a background job with ``replies["job"]``, and anything
    after a cell with ``answer``."""

    def reply(request):
        if outputs_since_user(request):
            return text(answer)
        user = latest_user(request)
        if 'origin="job"' in user:
            return replies.get("job", text("noted"))
        for key, value in replies.items():
            if key in user:
                return value
        return text(answer)

    return reply


class CellIOTest(unittest.TestCase):
    def start(self, replies, **kwargs):
        return start_albedo(self.addCleanup, script(replies), **kwargs)

    # -- live output -----------------------------------------------------------

    def test_a_printing_cell_streams_its_output_before_its_result(self):
        code = "import sys, time\nfor i in range(30):\n    print('tick', i, file=sys.stderr if i % 2 else sys.stdout)\n    time.sleep(0.1)"
        _, app = self.start({"tick": python(code)})
        session = app.session()
        stream = EventStream(app, session)
        self.addCleanup(stream.close)
        self.assertTrue(wait_until(lambda: stream.pages))
        turn(app, session, "tick for three seconds")
        self.assertTrue(wait_until(lambda: any(e["type"] == "turn" for e in stream.live())))
        live = stream.live()
        tool_at = next(i for i, e in enumerate(live) if e["type"] == "tool")
        outputs = [e for e in live[:tool_at] if e["type"] == "output"]
        self.assertGreaterEqual(len(outputs), 20, "output events before the tool event")
        self.assertFalse([e for e in live[tool_at:] if e["type"] == "output"], "output events after the tool event")
        result = json.loads(live[tool_at]["result"])
        self.assertEqual("".join(e["text"] for e in outputs), result["output"])
        self.assertEqual(result["output"], "".join("tick %d\n" % i for i in range(30)))
        call = next(e for e in live if e["type"] == "tool_call")
        self.assertEqual({e["call"] for e in outputs}, {call["seq"]})
        self.assertGreaterEqual(result["duration_ms"], 3000)

    def test_a_crash_mid_cell_keeps_what_the_cell_printed(self):
        code = (
            "import time\nopen('ran.log', 'a').write('ran\\n')\n"
            "for i in range(600):\n    print('line', i, flush=True)\n    time.sleep(0.1)"
        )
        provider, app = self.start({"count": python(code)})
        session = app.session()
        stream = EventStream(app, session)
        self.assertTrue(wait_until(lambda: stream.pages))
        app.prompt(session, "count slowly").close()
        printed = lambda: "".join(e["text"] for e in stream.live() if e["type"] == "output")
        self.assertTrue(wait_until(lambda: printed().count("\n") >= 5), printed())
        seen = printed()
        if app.database is not None:
            # A PostgreSQL store keeps the spool in the database, written
            # every 100 ms: a crash loses what the last batch had not
            # written, so the crash waits for the batch holding what was seen.
            spooled = lambda: app.database.query("SELECT convert_from(head, 'UTF8') FROM cell_output")
            self.assertTrue(wait_until(lambda: seen in spooled()), "what the cell printed never reached the database")
        app.restart(crash=True)
        stream.close()
        app.idle(session, timeout=60)
        [result] = python_results(app, session)
        self.assertEqual(result["status"], "interrupted")
        self.assertTrue(result["output"].startswith(seen), (seen, result["output"]))
        self.assertTrue(result["output"].endswith(RESTART_NOTE), result["output"])
        self.assertEqual((app.workspace / "ran.log").read_text(), "ran\n", "the cell ran again")

    # -- background jobs ---------------------------------------------------------

    def test_a_job_that_ends_unread_wakes_the_idle_session_once(self):
        with mock.patch.dict(os.environ, {"ALBEDO_IDLE_SECONDS": "1"}):
            provider, app = self.start({
                "build": python("kept = 7\nj = run('sleep 2; exit 3')\nprint(j.id, j.running)"),
                "job": python("print(kept, jobs()[1].exit_code, jobs()[1].running)"),
            })
        session = app.session()
        turn(app, session, "build in the background")
        self.assertEqual(python_results(app, session)[0]["output"], "1 True\n")
        self.assertTrue(wait_until(lambda: len(python_results(app, session)) == 2), "the session never woke")
        app.idle(session, timeout=60)
        woke = [e for e in app.events(session) if e["type"] == "user" and e.get("source") == "job"]
        self.assertEqual(len(woke), 1, woke)
        self.assertRegex(woke[0]["text"], r"^background job 1 finished \(exit 3, 2\.\d s\): jobs\(\)\[1\]\.tail\(\) shows its last lines$")
        # The kernel outlived an idle timeout shorter than the job.
        self.assertEqual(python_results(app, session)[1]["output"], "7 3 False\n")
        asked = [r for r in provider.requests if 'origin="job"' in latest_user(r["request"])]
        self.assertEqual(len(asked), 2, "the wake turn: the job message, then the cell's output")
        self.assertTrue(all(r["model"] == "fixture-model" and r["authorization"] == "Bearer fixture-key" for r in asked))

    def test_an_awaited_job_does_not_wake_the_session(self):
        provider, app = self.start({
            "await": python("j = run('sleep 1; exit 4')\nprint(await j)"),
            "again": python("j2 = run('exit 0')"),
        })
        session = app.session()
        turn(app, session, "await a job")
        self.assertEqual(python_results(app, session)[0]["output"], "4\n")
        app.prompt(session, "again, unread").close()
        self.assertTrue(wait_until(lambda: any(e.get("source") == "job" for e in app.events(session))))
        app.idle(session, timeout=60)
        woke = [e["text"] for e in app.events(session) if e.get("source") == "job"]
        self.assertEqual(len(woke), 1, woke)
        self.assertTrue(woke[0].startswith("background job 2 finished (exit 0,"), woke)

    def test_stop_ends_the_jobs_whole_process_group(self):
        marker = "100.%d" % os.getpid()
        code = (
            f"import time\nj = run('sleep {marker} & echo $!; wait')\n"
            "while not j.tail():\n    time.sleep(0.01)\nchild = int(j.tail())\n"
            "print(j.pid, child, j.stop(), j.running)"
        )
        _, app = self.start({"stop": python(code)})
        session = app.session()
        turn(app, session, "start and stop")
        job, child, code, running = python_results(app, session)[0]["output"].split()
        self.assertEqual((code, running), ("-15", "False"))
        self.assertTrue(wait_until(lambda: not processes(["sleep", marker]), 10), "the job's child survived stop()")
        self.assertTrue(wait_until(lambda: not processes(["/bin/sh", "-c", f"sleep {marker} & echo $!; wait"]), 10))

    def test_jobs_die_with_their_kernel_when_the_daemon_dies(self):
        marker = "101.%d" % os.getpid()
        _, app = self.start({"spawn": python(f"j = run(['sleep', '{marker}'])\nprint(j.pid)")})
        session = app.session()
        turn(app, session, "spawn a job")
        self.assertTrue(wait_until(lambda: processes(["sleep", marker]), 10), "the job did not start")
        app.restart(crash=True)
        self.assertTrue(wait_until(lambda: not processes(["sleep", marker]), 10), "the job outlived the daemon that died")

    # -- images ------------------------------------------------------------------

    def test_show_image_reaches_the_model_in_both_protocols(self):
        picture = png(2, 3)
        url = "data:image/png;base64," + base64.b64encode(picture).decode()
        for protocol in ("responses", "chat_completions"):
            with self.subTest(protocol=protocol):
                provider, app = self.start({"look": python("show_image('chart.png')")}, protocol=protocol)
                (app.workspace / "chart.png").write_bytes(picture)
                session = app.session()
                turn(app, session, "look at the chart")
                [result] = python_results(app, session)
                self.assertEqual(result["status"], "ok", result)
                self.assertEqual(result["images"], [{"mimeType": "image/png", "width": 2, "height": 3, "bytes": len(picture)}])
                items = inputs_of(provider.requests[1]["request"])
                if protocol == "responses":
                    [output] = [i for i in items if i.get("type") == "function_call_output"]
                    self.assertEqual([p["type"] for p in output["output"]], ["input_text", "input_image"])
                    self.assertEqual(output["output"][1]["image_url"], url)
                else:
                    at = next(n for n, i in enumerate(items) if i.get("role") == "tool")
                    shown = items[at + 1]
                    self.assertEqual(shown["role"], "user")
                    self.assertIn('origin="python"', shown["content"][0]["text"])
                    self.assertEqual(shown["content"][1]["image_url"]["url"], url)
                events = json.dumps(app.events(session))
                self.assertNotIn(base64.b64encode(picture).decode()[:40], events)
                history = app.history(session)["items"]
                [shown] = [i for i in history if i["kind"] == "tool_image"]
                self.assertEqual(shown["image"], {"mimeType": "image/png", "width": 2, "height": 3, "bytes": len(picture)})
                self.assertEqual(shown["call_id"], next(i["call_id"] for i in history if i["kind"] == "tool_result"))
                self.assertNotIn(base64.b64encode(picture).decode()[:40], json.dumps(history))

    def test_a_bad_or_fifth_image_is_an_error_and_nothing_is_attached(self):
        provider, app = self.start({
            "text file": python("open('notes.txt', 'w').write('hi')\nshow_image('notes.txt')"),
            "five": python("for _ in range(5):\n    show_image('chart.png')"),
        })
        (app.workspace / "chart.png").write_bytes(png(2, 3))
        session = app.session()
        for prompt, error in (("show a text file", "is not a PNG, JPEG, GIF or WebP image"), ("show five", "at most 4 images")):
            before = len(provider.requests)
            turn(app, session, prompt)
            result = python_results(app, session)[-1]
            self.assertEqual(result["status"], "error")
            self.assertIn(error, result["error"])
            self.assertNotIn("images", result)
            for request in provider.requests[before:]:
                self.assertNotIn("data:image", json.dumps(request["request"]))


if __name__ == "__main__":
    unittest.main()
