"""Two daemons (homes and ports of their own) share one PostgreSQL
database, and a message reaches its session through either: messages sent
at once to one idle session through both daemons start exactly one turn,
which takes both, each once, and neither daemon answers 5xx.

The model holds its answer until both messages were answered by their
daemons, so that both are sent while the turn they race to start runs
(once sent, a message is stored: the turn must take it before it ends).

``ALBEDO_RACE_RUNS`` sets how many races are run (default 50)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import unittest
import urllib.error

from harness import PostgresDatabase, Provider, text, wait_until
from test_shared_store import SharedDaemon

RUNS = int(os.environ.get("ALBEDO_RACE_RUNS", "50"))

HOLD_SECONDS = 30
"""How long the model waits for both messages to be answered before it
answers anyway (and the test fails on what it then finds)."""


def running(app, session) -> bool:
    """Whether ``app`` says the session runs a turn."""
    with app.api(f"/sessions/{session}/status") as response:
        return bool(json.load(response).get("running"))


@unittest.skipUnless(os.environ.get("ALBEDO_TEST_POSTGRES_URL") or os.environ.get("CI") == "true",
                     "needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
class SharedStoreRoutingTest(unittest.TestCase):
    def setUp(self):
        self.sent = threading.Event()

        def model(_request):
            self.sent.wait(HOLD_SECONDS)
            return text("finished")

        self.provider = Provider(model)
        self.addCleanup(self.provider.close)

    def post(self, app, session, content, answers, start):
        """Sends ``content`` through ``app`` once ``start`` lets it, and
        records the HTTP status in ``answers``."""
        start.wait()
        try:
            with app.prompt(session, content) as response:
                answers[content] = response.status
        except urllib.error.HTTPError as error:
            answers[content] = (error.code, error.read().decode(errors="replace"))
        except OSError as error:
            answers[content] = repr(error)

    def test_messages_racing_through_both_daemons_start_one_turn_with_both(self):
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        database = PostgresDatabase()
        stack.callback(database.drop)
        a = stack.enter_context(SharedDaemon(self.provider, database, "node-a"))
        b = stack.enter_context(SharedDaemon(self.provider, database, "node-b"))
        session = a.session()
        for run in range(RUNS):
            with self.subTest(run=run):
                self.sent.clear()
                start = threading.Barrier(2)
                answers: dict = {}
                sent = {app: f"race {run} through {app.node}" for app in (a, b)}
                threads = [threading.Thread(target=self.post, args=(app, session, content, answers, start))
                           for app, content in sent.items()]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join(60)
                self.sent.set()
                self.assertTrue(len(answers) == 2 and all(isinstance(code, int) and 200 <= code < 300 for code in answers.values()),
                                f"run {run}: the daemons answered {answers}")

                def settled():
                    # Idle first, then the transcript: read the other way
                    # round, a turn may both deliver the messages and end
                    # between the two reads.
                    if any(running(app, session) for app in (a, b)):
                        return False
                    items = a.history(session)["items"]
                    users = [i["text"] for i in items if i["kind"] == "user"]
                    return bool(items) and items[-1]["kind"] == "turn" and all(m in users for m in sent.values())

                self.assertTrue(wait_until(settled, 60),
                                f"run {run}: the session did not take both messages and end its turn\n"
                                f"--- a ---\n{a._log_tail()}\n--- b ---\n{b._log_tail()}")
                items = a.history(session)["items"]
                self.assertEqual(items, b.history(session)["items"])
                users = [i["text"] for i in items if i["kind"] == "user"]
                for message in sent.values():
                    self.assertEqual(users.count(message), 1, f"run {run}: {message!r} delivered {users.count(message)} times")
                turns = [i for i in items if i["kind"] == "turn"]
                self.assertEqual(len(turns), run + 1, f"run {run}: {len(turns)} turns after {run + 1} races: {items}")
                self.assertEqual(turns[-1]["text"], "finished")
                seqs = [i["seq"] for i in items]
                self.assertEqual(seqs, sorted(set(seqs)))
