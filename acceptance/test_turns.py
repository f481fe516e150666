"""Turns as a client sees them: input checks, the live stream, the tree,
interrupts, forks and vent triage over HTTP."""

from __future__ import annotations

import base64
import json
import threading
import unittest

from harness import Albedo, EventStream, Provider, http_error, python, read, start_albedo, text, turn, wait_until
from scripts import by_prompt

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAAD")


def refused(test, call):
    """An API error in albedo's shape: a message and a code."""
    code, body = http_error(test, call)
    test.assertTrue(body.get("error"))
    test.assertTrue(body.get("code"))
    return code, body


class TurnTest(unittest.TestCase):
    def start(self, script, **kwargs):
        return start_albedo(self.addCleanup, script, **kwargs)

    def test_bad_messages_are_refused_and_record_nothing(self):
        provider, app = self.start(by_prompt({}))
        session = app.session()
        route = f"/sessions/{session}/events"
        image = {"mimeType": "image/png", "data": base64.b64encode(PNG).decode(), "width": 2, "height": 3, "bytes": 24}
        cases = [
            ({"content": ""}, 400),
            ({"content": "   \n"}, 400),
            ({"content": 42}, 400),
            ({}, 400),
            ({"content": "look", "image": dict(image, data="%%%not base64%%%")}, 400),
            ({"content": "look", "image": dict(image, data=base64.b64encode(b"plain text, no image").decode())}, 400),
            ({"content": "look", "image": dict(image, mimeType="image/jpeg")}, 409),
            ({"content": "look", "image": dict(image, bytes=25)}, 409),
            ({"content": "look", "image": "a string"}, 400),
        ]
        for body, status in cases:
            with self.subTest(body=body):
                code, _ = refused(self, lambda: app.api(route, body))
                self.assertEqual(code, status)
        code, _ = refused(self, lambda: app.api("/sessions/no-such-session/events", {"content": "hi"}))
        self.assertEqual(code, 404)
        self.assertEqual(app.events(session), [])
        self.assertEqual(len(provider.requests), 0)
        self.assertEqual(read(app, "/sessions")[0]["title"], "new session")

    def test_the_stream_starts_with_a_snapshot_mid_turn_and_then_goes_live(self):
        _, app = self.start(by_prompt({"slow": python("import time\ntime.sleep(1.5)\nprint('slept')", reasoning="plan")}, answer="all done"))
        session = app.session()
        app.prompt(session, "a slow task").close()
        self.assertTrue(wait_until(lambda: any(e.get("type") == "tool_call" for e in app.events(session))))
        stream = EventStream(app, session)
        self.addCleanup(stream.close)
        self.assertTrue(wait_until(lambda: stream.pages))
        snapshot = stream.pages[0]
        self.assertEqual([e["type"] for e in snapshot if e["type"] in ("user", "tool_call")], ["user", "tool_call"])
        app.idle(session)
        self.assertTrue(wait_until(lambda: any(e.get("type") == "turn" for e in stream.live())))
        live = stream.live()
        self.assertIn("tool", [e["type"] for e in live])
        self.assertIn("all done", [e.get("text") for e in live if e["type"] == "message"])
        self.assertIn("all done", "".join(e.get("text", "") for e in live if e["type"] == "delta" and e.get("kind") == "text"))
        seqs = [e["seq"] for e in snapshot + live if e.get("seq")]
        self.assertEqual(len(seqs), len(set(seqs)), "an event was sent twice")
        self.assertEqual(seqs, sorted(seqs))

    def test_the_tree_pages_with_stable_ids(self):
        _, app = self.start(by_prompt({"task": python("1")}))
        session = app.session()
        for n in range(3):
            turn(app, session, f"task {n}")
        whole = read(app, f"/sessions/{session}/tree?after=0&limit=100")
        self.assertFalse(whole["hasMore"])
        pages, after = [], 0
        while True:
            page = read(app, f"/sessions/{session}/tree?after={after}&limit=2")
            pages += page["items"]
            if not page["hasMore"]:
                break
            after = page["items"][-1]["id"]
        self.assertEqual(pages, whole["items"])
        self.assertEqual([i["preview"] for i in whole["items"] if i["type"] == "user"], ["task 0", "task 1", "task 2"])
        code, _ = refused(self, lambda: app.api(f"/sessions/{session}/tree?after=-1"))
        self.assertEqual(code, 400)

    def test_interrupting_a_model_request_leaves_the_session_usable(self):
        gate = threading.Event()

        def script(request):
            if "wait" in json.dumps(request):
                gate.wait(20)
            return text("answered")

        provider, app = self.start(script)
        session = app.session()
        app.prompt(session, "wait for me").close()
        self.assertTrue(wait_until(lambda: len(provider.requests) == 1))
        app.api(f"/sessions/{session}/interrupt", {}).close()
        self.assertFalse(read(app, f"/sessions/{session}/status")["running"])
        gate.set()
        events = app.events(session)
        self.assertEqual([e.get("status") for e in events if e["type"] == "turn"], ["interrupted"])
        self.assertNotIn("message", [e["type"] for e in events])
        turn(app, session, "go on")
        self.assertIn("answered", [e.get("text") for e in app.events(session) if e["type"] == "message"])

    def test_forks_refuse_bad_checkpoints(self):
        _, app = self.start(by_prompt({"slow": python("import time\ntime.sleep(3)"), "quick": python("1")}))
        first, second = app.session(), app.session()
        turn(app, first, "quick one")
        items = read(app, f"/sessions/{first}/tree?after=0&limit=100")["items"]
        last = items[-1]["id"]
        for body, status in (({"checkpoint": last + 50}, 404), ({"checkpoint": 0}, 400), ({"checkpoint": "one"}, 400), ({}, 400)):
            with self.subTest(body=body):
                code, _ = refused(self, lambda: app.api(f"/sessions/{first}/fork", body))
                self.assertEqual(code, status)
        code, _ = refused(self, lambda: app.api(f"/sessions/{second}/fork", {"checkpoint": 1}))
        self.assertEqual(code, 404, "a checkpoint of another session")
        app.prompt(second, "slow one").close()
        self.assertTrue(wait_until(lambda: any(i["preview"] == "call python" for i in read(app, f"/sessions/{second}/tree")["items"])))
        call = next(i for i in read(app, f"/sessions/{second}/tree")["items"] if i["preview"] == "call python")
        code, _ = refused(self, lambda: app.api(f"/sessions/{second}/fork", {"checkpoint": call["id"]}))
        self.assertEqual(code, 409)
        with app.api(f"/sessions/{second}/fork", {"checkpoint": 1}) as response:
            branch = json.load(response)
        self.assertEqual((branch["parent_id"], branch["checkpoint"]), (second, 1))
        app.idle(second)


class VentTriageTest(unittest.TestCase):
    def test_conditional_writes_and_paging(self):
        cells = [python(f"await vent('bug', 'complaint {n}')") for n in range(5)]

        def script(request):
            if request["messages"][-1].get("role") == "user" and cells:
                return cells.pop(0)
            return text("done")

        provider = Provider(script)
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            for n in range(5):
                turn(app, session, f"complain {n}")
            page = read(app, "/extensions/paperclips/items?limit=2")
            self.assertEqual([i["value"]["message"] for i in page["items"]], ["complaint 4", "complaint 3"])
            rest = read(app, f"/extensions/paperclips/items?limit=10&cursor={page['next']}")
            self.assertEqual([i["value"]["message"] for i in rest["items"]], ["complaint 2", "complaint 1", "complaint 0"])
            self.assertNotIn("next", rest)

            vent = page["items"][0]["value"]["id"]
            route = f"/extensions/paperclips/items/{vent}"
            with app.api(route) as response:
                tag = response.headers["ETag"]
            code, _ = refused(self, lambda: app.api(route, {"reply": "no tag"}, method="PATCH"))
            self.assertEqual(code, 428)
            with app.api(route, {"reply": "first"}, method="PATCH", headers={"If-Match": tag}) as response:
                self.assertEqual(json.load(response)["resource"]["value"]["status"], "acknowledged")
            code, _ = refused(self, lambda: app.api(route, {"reply": "stale"}, method="PATCH", headers={"If-Match": tag}))
            self.assertEqual(code, 412)
            code, _ = refused(self, lambda: app.api(route, method="DELETE", headers={"If-Match": tag}))
            self.assertEqual(code, 412)
            with app.api(route) as response:
                tag = response.headers["ETag"]
                self.assertEqual(json.load(response)["value"]["reply"], "first")
            with app.api(route, {"status": "dismissed"}, method="PATCH", headers={"If-Match": tag}) as response:
                self.assertEqual(json.load(response)["resource"]["value"]["status"], "dismissed")
            code, _ = refused(self, lambda: app.api(route, {"status": "forgotten"}, method="PATCH", headers={"If-Match": response.headers["ETag"]}))
            self.assertEqual(code, 400)
            other = page["items"][1]["value"]["id"]
            other_route = f"/extensions/paperclips/items/{other}"
            with app.api(other_route) as response:
                tag = response.headers["ETag"]
            code, _ = refused(self, lambda: app.api(other_route, {"reply": "half", "status": "forgotten"}, method="PATCH", headers={"If-Match": tag}))
            self.assertEqual(code, 400)
            with app.api(other_route) as response:
                self.assertEqual(response.headers["ETag"], tag, "a refused change was partly stored")
                self.assertEqual(json.load(response)["value"]["status"], "open")
            glances = read(app, f"/sessions/{session}?tail=0")["glances"]
            self.assertEqual(sum(g.get("pending_replies", 0) for g in glances if g["extension"] == "paperclips"), 1)
            code, _ = refused(self, lambda: app.api("/extensions/paperclips/items/999999"))
            self.assertEqual(code, 404)


if __name__ == "__main__":
    unittest.main()
