"""The PostgreSQL server stopping under a running daemon (``pg_ctl stop -m
fast``) during a turn, and starting again: requests meanwhile answer 503
store_unavailable with Retry-After, nothing committed is lost, no session
stays running, and streams go on once the server is back, all without a
restart of the daemon.

The test runs a PostgreSQL cluster of its own (it stops it); it needs
PostgreSQL's programs, which scripts/test.sh installs."""

from __future__ import annotations

import json
import threading
import unittest
import urllib.error

from harness import Albedo, PostgresDatabase, PostgresServer, Provider, read, text, turn, wait_until

GONE = "the PostgreSQL server"


class PostgresOutageTest(unittest.TestCase):
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

    def refused(self, call):
        """Asserts the documented store failure for call()."""
        with self.assertRaises(urllib.error.HTTPError) as caught:
            call().close()
        error = caught.exception
        answer = json.load(error)
        self.assertEqual(error.code, 503, answer)
        self.assertEqual(answer.get("code"), "store_unavailable", answer)
        self.assertIn(GONE, answer.get("error", ""))
        self.assertTrue(error.headers.get("Retry-After", "").isdigit(), dict(error.headers))

    def texts(self, app, session):
        return [(e["type"], e.get("text")) for e in app.events(session) if e["type"] in ("user", "message")]

    def test_the_server_stopped_during_a_turn(self):
        def on_own_server(app):
            app.database = PostgresDatabase(self.server.url)

        with Albedo(self.provider, prepare=on_own_server) as app:
            session = app.session()
            turn(app, session, "first")
            gate = threading.Event()
            self.gate = gate
            app.prompt(session, "second").close()
            self.assertTrue(self.asked.wait(30), "the model was never asked")
            committed = self.texts(app, session)
            self.assertEqual(committed, [("user", "first"), ("message", "answered"), ("user", "second")])

            live = []
            stream = app.api(f"/sessions/{session}/stream?after=0")
            self.addCleanup(stream.close)

            def read_live():
                for line in stream:
                    if line.startswith(b"data: "):
                        live.extend(json.loads(line[6:]).get("events", []))

            threading.Thread(target=read_live, daemon=True).start()
            self.assertTrue(wait_until(lambda: any(e.get("text") == "second" for e in live)), live)

            self.server.stop("fast")
            try:
                gate.set()  # the model answers; its reply cannot be stored
                # The turn ends; its end cannot be stored, and the stream
                # says so.
                self.assertTrue(wait_until(lambda: any(e.get("type") == "status" and e.get("running") is False for e in live), 60),
                                f"the session stayed running with its store gone: {live}")
                self.refused(lambda: app.api(f"/sessions/{session}/events", {"content": "refused while stopped"}))
                self.refused(lambda: app.api("/sessions", {"workspace": str(app.workspace)}))
                self.refused(lambda: app.api("/sessions"))
                self.refused(lambda: app.api(f"/sessions/{session}/history"))
            finally:
                self.server.start()

            # Back without a restart: what was committed is there, the
            # session takes a new turn, and the stream opened before the
            # outage shows it.
            self.assertFalse(read(app, f"/sessions/{session}/status")["running"])
            seen = self.texts(app, session)
            self.assertEqual(seen[:3], committed)
            turn(app, session, "third")
            seen = self.texts(app, session)
            self.assertEqual(seen[:3], committed)
            self.assertEqual(seen[-2:], [("user", "third"), ("message", "answered")])
            self.assertNotIn(("user", "refused while stopped"), seen)
            self.assertTrue(wait_until(lambda: any(e.get("text") == "third" for e in live)), live)
            self.assertTrue(any(e["type"] == "error" and GONE in e.get("text", "") for e in live), live)
            seqs = [e["seq"] for e in live if "seq" in e]
            self.assertEqual(seqs, sorted(set(seqs)), "the stream repeated or reordered events")

            # The store agrees: a restart resumes nothing.
            app.restart(crash=True)
            self.assertFalse(read(app, f"/sessions/{session}/status")["running"])
            self.assertEqual(self.texts(app, session), seen)


if __name__ == "__main__":
    unittest.main()
