"""Two daemons share one PostgreSQL database: a stream opened on one shows
the live events of a turn the other runs (the running cell's output, the
reply's text as it streams) while the turn runs, before its end."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import unittest

from harness import LocalServer, PostgresDatabase, QuietHandler, EventStream, wait_until
from test_shared_store import SharedDaemon

WAIT = 60
"""How long the test waits for a state before it fails: generous on a
loaded machine."""

GATE = "gate"

CELL = f"""import os, time
print('tick 1', flush=True)
while not os.path.exists({GATE!r}):
    time.sleep(0.02)
print('tick 2', flush=True)
"""

HALF = "half of the answer"


class Model(QuietHandler):
    """A model that calls the cell first; told of its output, it streams
    half an answer and holds the stream until ``release`` is set, then
    finishes it."""

    release: threading.Event

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        after_cell = request["messages"][-1].get("role") == "tool"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

        def send(delta, finish=None):
            chunk = {"id": "c", "object": "chat.completion.chunk", "model": "fixture-model",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        if not after_cell:
            call = {"index": 0, "id": "call-1", "type": "function",
                    "function": {"name": "python", "arguments": json.dumps({"code": CELL})}}
            send({"role": "assistant", "tool_calls": [call]})
            send({}, "tool_calls")
        else:
            send({"role": "assistant", "content": HALF})
            self.release.wait(WAIT)
            send({"content": ", and the rest"})
            send({}, "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


@unittest.skipUnless(os.environ.get("ALBEDO_TEST_POSTGRES_URL") or os.environ.get("CI") == "true",
                     "needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
class SharedLiveEventsTest(unittest.TestCase):
    def test_a_stream_on_one_daemon_shows_the_other_daemons_turn_as_it_runs(self):
        release = threading.Event()
        self.addCleanup(release.set)
        handler = type("HeldModel", (Model,), {"release": release})
        server = LocalServer(handler)
        self.addCleanup(server.close)
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        database = PostgresDatabase()
        stack.callback(database.drop)
        a = stack.enter_context(SharedDaemon(server, database, "node-a"))
        b = stack.enter_context(SharedDaemon(server, database, "node-b"))
        session = a.session()
        on_a = EventStream(a, session)
        self.addCleanup(on_a.close)
        self.assertTrue(wait_until(lambda: on_a.pages, WAIT), "a's stream sent no snapshot")

        def turn_ended() -> bool:
            return any(item["kind"] == "turn" for item in b.history(session)["items"])

        def shown(kind: str, text: str) -> bool:
            return any(e["type"] == kind and text in e.get("text", "") for e in on_a.live())

        b.prompt(session, "print over time").close()
        self.assertTrue(wait_until(lambda: shown("output", "tick 1"), WAIT),
                        f"a's stream never showed the running cell's output: {on_a.live()}\n{b._log_tail()}")
        self.assertFalse(turn_ended(), "the turn ended while its cell waited")
        (a.workspace / GATE).write_text("")
        self.assertTrue(wait_until(lambda: shown("delta", HALF), WAIT),
                        f"a's stream never showed the streaming reply: {on_a.live()}\n{b._log_tail()}")
        self.assertFalse(turn_ended(), "the turn ended while its reply was held")
        release.set()
        b.idle(session)
        self.assertTrue(wait_until(lambda: any(e["type"] == "turn" for e in on_a.live()), WAIT),
                        f"a's stream never showed the turn's end: {on_a.live()}")
        live = on_a.live()
        types = [e["type"] for e in live]
        self.assertIn({"type": "status", "running": True}, live, "a never heard the turn start")
        self.assertNotIn("gap", types, "a gap with no lapse")
        # Every durable event once, in order, as b stored them; the cell's
        # output before its tool event, the reply's delta before its message.
        seqs = [e["seq"] for e in live if "seq" in e]
        self.assertEqual(seqs, [i["seq"] for i in b.history(session)["items"]])
        self.assertLess(types.index("output"), types.index("tool"))
        self.assertLess(types.index("delta", types.index("tool")), types.index("message"))
        # What the cell printed last may come after its tool event was
        # heard, and is then left out: the tool event holds it.
        tool = next(e for e in live if e["type"] == "tool")
        self.assertEqual(json.loads(tool["result"])["output"], "tick 1\ntick 2\n")


if __name__ == "__main__":
    unittest.main()
