"""Compaction as a client sees it: a provider that says the context is full
gets one summary request and one retry, and the transcript stays whole."""

from __future__ import annotations

import json
import threading
import urllib.error
import unittest

from harness import Albedo, Provider, python, refusal, text

FULL = {
    "error": {
        "message": "This model's maximum context length is 6000 tokens. However, your messages resulted in 9000 tokens.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}


def body_text(request) -> str:
    return json.dumps(request, ensure_ascii=False)


def is_summary(request) -> bool:
    return "<newly-evicted-history>" in body_text(request) and not request.get("tools")


class FullOnce:
    """Answers each message with one python round and then text, and
    refuses the first request that carries the message "third"."""

    def __init__(self):
        self.lock = threading.Lock()
        self.refused = 0

    def __call__(self, request):
        with self.lock:
            if is_summary(request):
                return text("the user asked for first and second; both printed")
            entries = request.get("input") or request.get("messages") or []
            last = entries[-1] if entries else {}
            said = body_text(last)
            role = last.get("role")
            if role == "user" and "third" in said and not self.refused:
                self.refused += 1
                return refusal(400, FULL)
            if role == "user":
                return python("print('ran')")
            return text("done")


def check_compaction_shown(test, app, session, history, summary):
    """One compaction item in the history and one event in the stream's
    snapshot, alike, with the summary and figures; the title unchanged."""
    items = [i for i in history["items"] if i["kind"] == "compaction"]
    test.assertEqual(len(items), 1, history["items"])
    item = items[0]
    test.assertEqual(item["summary"], summary)
    test.assertNotIn("text", item)
    test.assertGreater(item["items"], 0)
    test.assertGreater(item["tokens_before"], item["tokens_after"])
    test.assertGreater(item["tokens_after"], 0)
    events = [e for e in app.events(session) if e["type"] == "compaction"]
    test.assertEqual(events, [{"type": "compaction", "seq": item["seq"], "timestamp": item["timestamp"], "summary": summary,
                               "items": item["items"], "tokens_before": item["tokens_before"], "tokens_after": item["tokens_after"]}])
    with app.api(f"/sessions/{session}") as response:
        title = json.load(response)["title"]
    users = [i["text"] for i in history["items"] if i["kind"] == "user" and not i.get("source")]
    test.assertEqual(title, users[-1], "the title is the latest message's")


class ContextFullTest(unittest.TestCase):
    def check(self, protocol):
        script = FullOnce()
        with Provider(script) as provider, Albedo(provider, protocol=protocol) as app:
            session = app.session()
            for message in ("first", "second"):
                app.prompt(session, message)
                app.idle(session)
            before = app.history(session)
            sent = len(provider.requests)
            app.prompt(session, "third")
            app.idle(session)

            turn = [r["request"] for r in provider.requests[sent:]]
            self.assertEqual(script.refused, 1)
            self.assertEqual([is_summary(r) for r in turn], [False, True, False, False], "refused, summary, retry, after the tool round")
            summary = body_text(turn[1])
            self.assertIn("<previous-summary>\\n(none)\\n</previous-summary>", summary)
            self.assertIn("first", summary)
            self.assertNotIn("third", summary)
            self.assertIn("[summary of the earlier conversation]", body_text(turn[2]))
            self.assertIn("the user asked for first and second", body_text(turn[2]))

            after = app.history(session)
            kinds = [e["kind"] for e in after["items"]]
            self.assertNotIn("error", kinds)
            self.assertEqual(after["items"][: len(before["items"])], before["items"], "earlier history unchanged")
            self.assertEqual(kinds.count("user"), 3)
            self.assertEqual(kinds.count("tool_call"), 3)
            check_compaction_shown(self, app, session, after, "the user asked for first and second; both printed")

    def test_responses(self):
        self.check("responses")

    def test_chat_completions(self):
        self.check("chat_completions")


if __name__ == "__main__":
    unittest.main()


class CompactCommandTest(unittest.TestCase):
    def compact(self, app, session):
        with app.api(f"/sessions/{session}/commands", {"name": "/compact"}) as response:
            return json.load(response)

    def test_compact_runs_like_a_turn(self):
        script = FullOnce()
        script.refused = 1
        with Provider(script) as provider, Albedo(provider) as app:
            session = app.session()
            app.prompt(session, "first")
            app.idle(session)
            sent = len(provider.requests)
            answer = self.compact(app, session)
            self.assertFalse(answer["result"]["started"])
            self.assertIn("nothing to compact", answer["result"]["reason"])
            self.assertEqual(len(provider.requests), sent, "a one-unit /compact made a provider request")

            app.prompt(session, "second")
            app.idle(session)
            history = app.history(session)
            sent = len(provider.requests)
            self.assertEqual(self.compact(app, session), {"result": {"started": True}})
            app.idle(session)
            self.assertEqual(len(provider.requests), sent + 1)
            self.assertTrue(is_summary(provider.requests[-1]["request"]))
            compacted = app.history(session)
            self.assertEqual(compacted["items"][: len(history["items"])], history["items"], "/compact changed the history")
            self.assertEqual([i["kind"] for i in compacted["items"][len(history["items"]) :]], ["compaction"], "/compact added more than its event")
            check_compaction_shown(self, app, session, compacted, "the user asked for first and second; both printed")

            app.prompt(session, "third")
            app.idle(session)
            after = body_text(provider.requests[sent + 1]["request"])
            self.assertIn("[summary of the earlier conversation]", after)

    def test_compact_while_a_turn_runs_is_busy(self):
        def script(request):
            if request.get("tools") and "time.sleep" not in body_text(request):
                return python("import time; time.sleep(60)")
            return text("done")

        with Provider(script) as provider, Albedo(provider) as app:
            session = app.session()
            app.prompt(session, "wait")
            with self.assertRaises(urllib.error.HTTPError) as caught:
                self.compact(app, session)
            self.assertEqual(caught.exception.code, 409)
            self.assertEqual(json.load(caught.exception)["code"], "busy")
            app.api(f"/sessions/{session}/interrupt", {}).close()
            app.idle(session)
