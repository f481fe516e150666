"""Two daemons (homes and ports of their own) share one PostgreSQL
database: a turn whose daemon dies (``kill -9``) during a cell is resumed
by the other within the lease time and a few seconds, as a restart resumes
it (the open call gets an interrupted output holding what the cell had
printed, kept in the database, one restart note, the cell is never run
again); a turn whose daemon shuts down mid-cell resumes on the other the
same way, with every line the cell printed; and a daemon stopped
(``SIGSTOP``) past its lease writes nothing more for the session once it
runs again, says so in its log, and its kernel is gone.

``ALBEDO_TAKEOVER_RUNS`` repeats the kill case (default 2)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import unittest

from harness import (Albedo, EventStream, PostgresDatabase, Provider, alive, kernel_processes, python,
                     python_results, wait_until)
from scripts import by_prompt

LEASE_SECONDS = 2
"""The daemons' lease time (ALBEDO_LEASE_SECONDS): a dead daemon's turn
resumes on the other about this long after."""

TAKEOVER_WAIT = LEASE_SECONDS + 15
"""How long a test waits for a takeover before it fails: the lease time
and generous room for a loaded machine."""

MARKER = "marker.log"

CELL = f"""import time
n = 0
while True:
    n += 1
    print('line', n, flush=True)
    with open({MARKER!r}, 'a') as f:
        f.write('x\\n')
    time.sleep(0.05)
"""


model = by_prompt({"marker": python(CELL), "print": python("print('from b')")}, answer="finished")
"""Runs the marker cell for a prompt naming the marker, a printing cell
for one saying print, and answers once its output (or the interrupted one
a takeover gives it) is in the conversation."""


class SharedDaemon(Albedo):
    """A daemon on the shared database, named ``node``."""

    def __init__(self, provider, database: PostgresDatabase, node: str):
        super().__init__(provider, prepare=self._share)
        self.shared, self.node = database, node

    def _share(self, app):
        app.database = self.shared

    def env(self) -> dict:
        env = super().env()
        env["ALBEDO_NODE"] = self.node
        env["ALBEDO_LEASE_SECONDS"] = str(LEASE_SECONDS)
        return env

    def __exit__(self, *exc) -> None:
        self.database = None  # the test drops the shared database
        super().__exit__(*exc)


@unittest.skipUnless(os.environ.get("ALBEDO_TEST_POSTGRES_URL") or os.environ.get("CI") == "true",
                     "needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
class SharedStoreTest(unittest.TestCase):
    def setUp(self):
        self.provider = Provider(model)
        self.addCleanup(self.provider.close)

    def pair(self, stack: contextlib.ExitStack):
        """Two daemons, a and b, on one new database, stopped (and the
        database dropped) when ``stack`` closes."""
        database = PostgresDatabase()
        stack.callback(database.drop)
        self.database = database
        a = stack.enter_context(SharedDaemon(self.provider, database, "node-a"))
        b = stack.enter_context(SharedDaemon(self.provider, database, "node-b"))
        return a, b

    def marker_lines(self, app) -> int:
        path = app.workspace / MARKER
        return len(path.read_text().split()) if path.exists() else 0

    def spooled(self) -> str:
        """The head of what the shared database keeps of running cells'
        output."""
        return self.database.query("SELECT convert_from(head, 'UTF8') FROM cell_output")

    def start_cell(self, a):
        """Starts a turn on a whose cell appends to the marker; returns
        the session and a's kernel processes once the marker grows."""
        session = a.session()
        a.prompt(session, "append to the marker").close()
        self.assertTrue(wait_until(lambda: self.marker_lines(a) >= 3), f"the cell never ran\n{a._log_tail()}")
        kernels = kernel_processes(a.workspace)
        self.assertTrue(kernels, "no kernel runs the cell")
        return session, kernels

    def check_resumed_once(self, b, session):
        """The transcript b shows: one interrupted output for the one
        call, one restart note, the answer, and seqs that only grow."""
        self.assertTrue(wait_until(lambda: b.history(session)["items"][-1]["kind"] == "turn", TAKEOVER_WAIT),
                        f"the turn was not resumed and finished\n--- b's log ---\n{b._log_tail()}")
        items = b.history(session)["items"]
        seqs = [item["seq"] for item in items]
        self.assertEqual(seqs, sorted(set(seqs)), f"seqs do not strictly increase: {seqs}")
        calls = [item for item in items if item["kind"] == "tool_call"]
        outputs = [item for item in items if item["kind"] == "tool_result"]
        self.assertEqual(len(calls), 1, items)
        self.assertEqual([o["call_id"] for o in outputs], [calls[0]["call_id"]], f"the call's outputs: {outputs}")
        restarts = [item for item in items if item["kind"] == "user" and item.get("source") == "daemon restart"]
        self.assertEqual(len(restarts), 1, items)
        self.assertEqual(items[-2]["kind"], "assistant")
        self.assertEqual(items[-2]["text"], "finished")
        return items

    def test_a_session_of_one_daemon_runs_through_the_other_and_streams_on_both(self):
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        a, b = self.pair(stack)
        for app, node in ((a, "node-a"), (b, "node-b")):
            with app.api("/health") as response:
                self.assertEqual(json.load(response).get("node"), node)
        session = a.session()
        self.assertIn(session, b.cli("sessions"))
        on_a = EventStream(a, session)
        self.addCleanup(on_a.response.close)
        b.prompt(session, "print something").close()
        b.idle(session)
        items = b.history(session)["items"]
        self.assertEqual([i["kind"] for i in items], ["user", "tool_call", "tool_result", "assistant", "turn"])

        def seqs_on_a():
            with on_a.lock:
                return [e["seq"] for page in on_a.pages for e in page if "seq" in e]

        want = [i["seq"] for i in items]
        self.assertTrue(wait_until(lambda: seqs_on_a() == want), f"a's stream showed {seqs_on_a()}, b's history {want}")
        self.assertEqual(a.history(session)["items"], items)
        # Last-Event-ID resumes on either daemon.
        with a.api(f"/sessions/{session}/stream", headers={"Last-Event-ID": str(want[1])}) as resumed:
            line = resumed.readline()
            while not line.startswith(b"data: "):
                line = resumed.readline()
            page = json.loads(line[6:])["events"]
        self.assertEqual([e["seq"] for e in page if "seq" in e], want[2:])

    def test_an_interrupt_through_one_daemon_stops_the_turn_the_other_runs(self):
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        a, b = self.pair(stack)
        session = a.session()
        b.prompt(session, "append to the marker").close()
        self.assertTrue(wait_until(lambda: self.marker_lines(a) >= 3), f"the cell never ran\n{b._log_tail()}")
        with a.api(f"/sessions/{session}/interrupt", {}) as response:
            answer = json.load(response)
        self.assertEqual(answer, {"running": False})
        items = b.history(session)["items"]
        self.assertEqual(items[-1]["kind"], "turn")
        self.assertEqual(items[-1]["text"], "interrupted")
        b.idle(session)

    def test_a_turn_cut_by_its_daemons_death_resumes_on_the_other(self):
        for run in range(int(os.environ.get("ALBEDO_TAKEOVER_RUNS", "2"))):
            with self.subTest(run=run), contextlib.ExitStack() as stack:
                a, b = self.pair(stack)
                session, kernels = self.start_cell(a)
                # What the cell printed reaches the database in batches.
                self.assertTrue(wait_until(lambda: "line 3\n" in self.spooled()), "the cell's output never reached the database")
                os.kill(a.connection["pid"], signal.SIGKILL)
                killed = time.monotonic()
                self.assertTrue(wait_until(lambda: not any(alive(pid) for pid in kernels), 10),
                                "the dead daemon's kernel outlived it")
                lines = self.marker_lines(a)
                a.connection = None
                self.check_resumed_once(b, session)
                took = time.monotonic() - killed
                self.assertEqual(self.marker_lines(a), lines, "the cell ran again after the takeover")
                [result] = python_results(b, session)
                self.assertEqual(result["status"], "interrupted")
                self.assertTrue(result["output"].startswith("line 1\nline 2\nline 3\n"),
                                f"the resumed call lacks what the cell printed on a: {result['output'][:200]!r}")
                self.assertTrue(wait_until(lambda: self.spooled() == ""), "the spooled output outlived the call's result")
                print(f"\n  run {run}: resumed and finished on b {took:.1f} s after the kill (lease {LEASE_SECONDS} s)", flush=True)
                self.assertIn("took over the turn", b.log())

    def test_a_turn_of_a_daemon_shut_down_mid_cell_resumes_on_the_other_with_all_it_printed(self):
        with contextlib.ExitStack() as stack:
            a, b = self.pair(stack)
            session, kernels = self.start_cell(a)
            a._stop()  # POST /shutdown: the turn stops, its spool is written, its lease released
            self.assertTrue(wait_until(lambda: not any(alive(pid) for pid in kernels), 10),
                            "the stopped daemon's kernel outlived it")
            lines = self.marker_lines(a)
            self.check_resumed_once(b, session)
            self.assertEqual(self.marker_lines(a), lines, "the cell ran again after the takeover")
            [result] = python_results(b, session)
            # Each pass prints its line before it appends to the marker:
            # the output holds every line up to the last pass's.
            self.assertIn(f"line {lines}\n", result["output"], f"the resumed call lacks the cell's last lines: {result['output'][-300:]!r}")

    def test_a_daemon_stopped_past_its_lease_writes_nothing_more(self):
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        a, b = self.pair(stack)
        session, kernels = self.start_cell(a)
        pid = a.connection["pid"]
        os.kill(pid, signal.SIGSTOP)
        try:
            items = self.check_resumed_once(b, session)
        finally:
            os.kill(pid, signal.SIGCONT)
        self.assertTrue(wait_until(lambda: "lost the lease of a session" in a.log(), TAKEOVER_WAIT),
                        f"a never said it lost the lease\n{a._log_tail()}")
        self.assertTrue(wait_until(lambda: not any(alive(k) for k in kernels), 10), "a's kernel outlived its lease")
        lines = self.marker_lines(a)
        # Its turn is over on a, and whatever it still tried to write (the
        # cell's output, the turn's end) never landed.
        a.idle(session, TAKEOVER_WAIT)
        self.assertEqual(b.history(session)["items"], items, "the stopped daemon wrote after it lost its lease")
        self.assertEqual(self.marker_lines(a), lines)


if __name__ == "__main__":
    unittest.main()
