"""Two daemons share a PostgreSQL server that stops (``pg_ctl stop -m
fast``) during a turn one of them runs, for longer than the lease time,
and starts again: a minute later no session is stored running, what was
committed before is all there, the turn's streams on both daemons go on
without a gap or a repeat, and the session takes new turns through
either daemon.

The test runs a PostgreSQL cluster of its own (it stops it); it needs
PostgreSQL's programs, which scripts/test.sh installs."""

from __future__ import annotations

import contextlib
import json
import threading
import unittest

from harness import PostgresDatabase, PostgresServer, Provider, read, text, turn, wait_until
from test_shared_store import SharedDaemon


class LiveStream:
    """Every event of a session's stream on one daemon, from its start."""

    def __init__(self, test, app, session):
        self.events: list = []
        self.lock = threading.Lock()
        self.response = app.api(f"/sessions/{session}/stream?after=0")
        test.addCleanup(self.response.close)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.response:
                if line.startswith(b"data: "):
                    with self.lock:
                        self.events.extend(json.loads(line[6:]).get("events", []))
        except (OSError, ValueError, AttributeError):  # closed at the end of the test
            pass

    def seqs(self) -> list:
        with self.lock:
            return [e["seq"] for e in self.events if "seq" in e]


class SharedStoreOutageTest(unittest.TestCase):
    def setUp(self):
        self.gate = None  # when set, the next model request waits for it
        self.asked = threading.Event()

        def script(request):
            gate = self.gate
            if gate is not None:
                self.gate = None
                self.asked.set()
                gate.wait(60)
            return text("answered")

        self.provider = Provider(script)
        self.addCleanup(self.provider.close)
        self.server = PostgresServer()
        self.addCleanup(self.server.close)

    def test_the_server_restarted_during_a_turn_of_one_of_two_daemons(self):
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        database = PostgresDatabase(self.server.url)
        a = stack.enter_context(SharedDaemon(self.provider, database, "node-a"))
        b = stack.enter_context(SharedDaemon(self.provider, database, "node-b"))
        session = a.session()
        turn(a, session, "first")
        gate = threading.Event()
        self.gate = gate
        a.prompt(session, "second").close()
        self.assertTrue(self.asked.wait(30), "the model was never asked")
        committed = b.history(session)["items"]
        self.assertEqual([i["kind"] for i in committed], ["user", "assistant", "turn", "user"])
        streams = {app.node: LiveStream(self, app, session) for app in (a, b)}
        for stream in streams.values():
            self.assertTrue(wait_until(lambda: stream.seqs() == [i["seq"] for i in committed]), stream.events)

        self.server.stop("fast")
        try:
            gate.set()  # the model answers; its reply cannot be stored
            # The owner's turn stops here: it either fails to renew its
            # lease first or fails to store the reply first, whichever
            # comes sooner.
            self.assertTrue(wait_until(lambda: "lost the lease of a session" in a.log()
                                       or "record end of turn" in a.log(), 60),
                            f"a's turn never stopped\n{a._log_tail()}")
            # The server stays down past the lease: b looks for orphaned
            # sessions every quarter of it, fails each time, and says so
            # when it starts failing and once a lease time after that.
            self.assertTrue(wait_until(lambda: 'msg="look for orphaned sessions still fails" failed_ticks=8 ' in b.log(), 60),
                            f"b never failed to look for orphaned sessions for two lease times\n{b._log_tail()}")
            self.assertEqual(b.log().count('msg="look for orphaned sessions"'), 1, b._log_tail())
        finally:
            self.server.start()

        def settled():
            items = b.history(session)["items"]
            return items[-1]["kind"] == "turn" and not any(read(app, f"/sessions/{session}/status")["running"] for app in (a, b))

        self.assertTrue(wait_until(settled, 60),
                        f"the session stayed running a minute after the server came back\n"
                        f"--- a ---\n{a._log_tail()}\n--- b ---\n{b._log_tail()}")
        stored = database.query(f"SELECT convert_from(stage, 'UTF8') FROM sessions WHERE id = convert_to('{session}', 'UTF8')").strip()
        self.assertNotEqual(stored, "running")
        items = b.history(session)["items"]
        self.assertEqual(items[:len(committed)], committed, "something committed before the outage was lost")
        self.assertEqual(a.history(session)["items"], items)
        seqs = [i["seq"] for i in items]
        self.assertEqual(seqs, sorted(set(seqs)))

        # A new turn through the other daemon; both streams show it all.
        turn(b, session, "third")
        items = b.history(session)["items"]
        want = [i["seq"] for i in items]
        for node, stream in streams.items():
            self.assertTrue(wait_until(lambda: stream.seqs() == want, 30),
                            f"{node}'s stream showed {stream.seqs()}, the history {want}")


if __name__ == "__main__":
    unittest.main()
