"""Compaction as a client sees it: a provider that says the context is full
gets one summary request and one retry, and the transcript stays whole."""

from __future__ import annotations

import json
import threading
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

    def test_responses(self):
        self.check("responses")

    def test_chat_completions(self):
        self.check("chat_completions")


if __name__ == "__main__":
    unittest.main()
