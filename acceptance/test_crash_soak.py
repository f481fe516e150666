"""Crash soak: a 30-cell session survives `kill -9` at ten different moments.

After every restart the transcript must have lost nothing and doubled
nothing, no cell may have run twice (each cell appends its index to a log in
the workspace: a re-run would repeat a line), and every tool call must stay
paired with exactly one output.
"""

from __future__ import annotations

import collections
import threading
import time
import unittest

from harness import Albedo, Provider, python, text, wait_until
from scripts import inputs_of, is_output

CELLS = 30

CELL = """from pathlib import Path
import time
time.sleep({pause})
with open('ran.log', 'a') as log:
    log.write('{index}\\n')
time.sleep({pause})
"""


class Model:
    """Asks for cells until CELLS tool outputs exist, then answers.

    ``stall`` makes the next request wait before it is answered, so that a
    kill lands while the daemon waits on the provider's stream."""

    def __init__(self):
        self.stall = threading.Event()

    def __call__(self, request):
        outputs = sum(is_output(item) for item in inputs_of(request))
        if self.stall.is_set():
            time.sleep(0.4)
        if outputs >= CELLS:
            return text("finished")
        return python(CELL.format(index=outputs + 1, pause=0.15))


KILL_POLL = 0.01
"""Seconds between looks for a kill point's moment: short, so that the kill
lands close to it."""


class CrashSoakTest(unittest.TestCase):
    def test_thirty_cells_survive_ten_kills(self):
        model = Model()
        provider = Provider(model)
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            log = app.workspace / "ran.log"

            def lines():
                return log.read_text().split() if log.exists() else []

            session = app.session()
            app.prompt(session, "run thirty cells").close()
            sent = ["run thirty cells"]

            def history():
                return [
                    (item["seq"], item["kind"], item.get("call_id"), item.get("text"))
                    for item in app.history(session)["items"]
                ]

            def kill():
                before = history()
                app.restart(crash=True)
                after = history()
                self.assertEqual(after[: len(before)], before, "the restart lost or changed transcript items")

            # Ten kill points, each waiting for a different moment.
            def mid_cell(n):
                self.assertTrue(wait_until(lambda: len(lines()) >= n, interval=KILL_POLL))
                kill()

            def while_streaming():
                model.stall.set()
                start = len(provider.requests)
                self.assertTrue(wait_until(lambda: len(provider.requests) > start, interval=KILL_POLL))
                time.sleep(0.1)
                kill()
                model.stall.clear()

            def after_request():
                start = len(provider.requests)
                self.assertTrue(wait_until(lambda: len(provider.requests) > start, interval=KILL_POLL))
                kill()

            def after_output(n):
                self.assertTrue(wait_until(lambda: sum(i["kind"] == "tool_result" for i in app.history(session)["items"]) >= n, interval=KILL_POLL))
                kill()

            def while_queueing(message):
                app.prompt(session, message).close()
                sent.append(message)
                kill()

            points = [
                lambda: mid_cell(2),
                while_streaming,
                lambda: mid_cell(6),
                after_request,
                lambda: while_queueing("a steer sent just before the crash"),
                lambda: mid_cell(13),
                while_streaming,
                lambda: after_output(17),
                lambda: while_queueing("another steer"),
                lambda: mid_cell(22),
            ]
            for point in points:
                point()
            app.idle(session, timeout=120)

            ran = lines()
            repeats = [i for i, n in collections.Counter(ran).items() if n > 1]
            self.assertEqual(repeats, [], f"cells ran twice: {repeats}")

            items = app.history(session)["items"]
            seqs = [item["seq"] for item in items]
            self.assertEqual(len(seqs), len(set(seqs)), "duplicate transcript items")
            self.assertEqual(seqs, sorted(seqs))
            calls = [item["call_id"] for item in items if item["kind"] == "tool_call"]
            outputs = [item["call_id"] for item in items if item["kind"] == "tool_result"]
            self.assertEqual(len(calls), len(set(calls)), "a call was recorded twice")
            self.assertEqual(sorted(calls), sorted(outputs), "calls and outputs are not paired one to one")
            self.assertGreaterEqual(len(outputs), CELLS)

            users = [item["text"] for item in items if item["kind"] == "user" and not item.get("source")]
            self.assertEqual(users, sent, "a user message was lost or doubled")
            restarts = [item for item in items if item["kind"] == "user" and item.get("source") == "daemon restart"]
            self.assertGreaterEqual(len(restarts), 1)
            self.assertLessEqual(len(restarts), len(points))
            answers = [item["text"] for item in items if item["kind"] == "assistant"]
            self.assertEqual(answers[-1:], ["finished"])


if __name__ == "__main__":
    unittest.main()
