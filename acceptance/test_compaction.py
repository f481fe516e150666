"""Compaction as a client sees it: a provider that says the context is full
gets one summary request and one retry, and the transcript stays whole."""

from __future__ import annotations

import json
import sqlite3
import threading
import unittest

from harness import Albedo, Provider, http_error, python, read, refusal, text, turn

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
    test.assertEqual(read(app, f"/sessions/{session}/context")["compaction"], {"state": "compacted", "summarised_items": item["items"], "at": item["timestamp"]})
    title = read(app, f"/sessions/{session}")["title"]
    users = [i["text"] for i in history["items"] if i["kind"] == "user" and not i.get("source")]
    test.assertEqual(title, users[-1], "the title is the latest message's")


class ContextFullTest(unittest.TestCase):
    def check(self, protocol):
        script = FullOnce()
        with Provider(script) as provider, Albedo(provider, protocol=protocol) as app:
            session = app.session()
            for message in ("first", "second"):
                turn(app, session, message)
            before = app.history(session)
            sent = len(provider.requests)
            turn(app, session, "third")

            asked = [r["request"] for r in provider.requests[sent:]]
            self.assertEqual(script.refused, 1)
            self.assertEqual([is_summary(r) for r in asked], [False, True, False, False], "refused, summary, retry, after the tool round")
            summary = body_text(asked[1])
            self.assertIn("<previous-summary>\\n(none)\\n</previous-summary>", summary)
            self.assertIn("first", summary)
            self.assertNotIn("third", summary)
            self.assertIn("[summary of the earlier conversation]", body_text(asked[2]))
            self.assertIn("the user asked for first and second", body_text(asked[2]))

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



class CompactCommandTest(unittest.TestCase):
    def compact(self, app, session):
        with app.api(f"/sessions/{session}/commands", {"name": "/compact"}) as response:
            return json.load(response)

    def test_compact_runs_like_a_turn(self):
        script = FullOnce()
        script.refused = 1
        with Provider(script) as provider, Albedo(provider) as app:
            session = app.session()
            turn(app, session, "first")
            sent = len(provider.requests)
            answer = self.compact(app, session)
            self.assertFalse(answer["result"]["started"])
            self.assertIn("nothing to compact", answer["result"]["reason"])
            self.assertEqual(len(provider.requests), sent, "a one-unit /compact made a provider request")
            self.assertEqual(read(app, f"/sessions/{session}/context")["compaction"], {"state": "none", "summarised_items": 0, "at": None})

            turn(app, session, "second")
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

            turn(app, session, "third")
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
            code, body = http_error(self, lambda: app.api(f"/sessions/{session}/commands", {"name": "/compact"}))
            self.assertEqual(code, 409)
            self.assertEqual(body["code"], "busy")
            app.api(f"/sessions/{session}/interrupt", {}).close()
            app.idle(session)


WINDOW = 6000
KILO = "print('y' * 1000)"


def entries(request):
    return request.get("input") or request.get("messages") or []


def outputs_since_user(request) -> int:
    """How many tool outputs follow the request's last user message."""
    count = 0
    for entry in reversed(entries(request)):
        if entry.get("role") == "user":
            break
        if entry.get("type") == "function_call_output" or entry.get("role") == "tool":
            count += 1
    return count


def calls_paired(test, request) -> None:
    """Fails unless every call of a request has its output and every output its call."""
    calls, outputs = set(), set()
    for entry in entries(request):
        if entry.get("type") == "function_call":
            calls.add(entry["call_id"])
        for call in entry.get("tool_calls") or []:
            calls.add(call["id"])
        if entry.get("type") == "function_call_output":
            outputs.add(entry["call_id"])
        if entry.get("role") == "tool":
            outputs.add(entry["tool_call_id"])
    test.assertEqual(calls, outputs, "a call without its output, or an output without its call")


class ToolRounds:
    """Answers each user message through three python rounds printing about
    1 KB each, then text; a summary request gets a numbered summary."""

    def __init__(self):
        self.lock = threading.Lock()
        self.summaries = 0

    def __call__(self, request):
        with self.lock:
            if is_summary(request):
                self.summaries += 1
                return text(f"SUMMARY #{self.summaries}")
            if outputs_since_user(request) < 3:
                return python(KILO)
            return text("done")


def content_text(entry) -> str:
    """The text of a message whose content is a string or a list of parts."""
    content = entry.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


class AutomaticCompactionTest(unittest.TestCase):
    """A 6,000-token window, 20 user messages each answered through three
    tool rounds of ~1 KB: compaction keeps every request in the window."""

    def check(self, protocol):
        script = ToolRounds()
        with Provider(script) as provider:
            providers = {
                "fixture": {
                    "baseUrl": provider.url,
                    "apiKey": "fixture-key",
                    "model": "fixture-model",
                    "protocol": protocol,
                    "contextWindow": WINDOW,
                }
            }
            with Albedo(provider, providers=providers) as app:
                session = app.session()
                snapshots = []
                for n in range(1, 21):
                    turn(app, session, f"message {n}")
                    if n % 5 == 0:
                        snapshots.append(app.history(session)["items"])

                summaries = 0
                latest = "(none)"
                for number, record in enumerate(provider.requests):
                    request = record["request"]
                    self.assertLessEqual(record["bytes"] // 4, WINDOW, f"request {number} is larger than the window")
                    if is_summary(request):
                        said = body_text(request)
                        self.assertIn(f"<previous-summary>\\n{latest}\\n</previous-summary>", said, "the summary so far is carried forward")
                        summaries += 1
                        latest = f"SUMMARY #{summaries}"
                        continue
                    calls_paired(self, request)
                    if summaries:
                        self.assertIn(f"[summary of the earlier conversation]\\n{latest}", body_text(request))
                self.assertGreaterEqual(summaries, 2, "the session compacted more than once")
                self.assertEqual(len(provider.requests), 80 + summaries)

                items = app.history(session)["items"]
                for snapshot in snapshots:
                    self.assertEqual(items[: len(snapshot)], snapshot, "compaction changed the history")
                kinds = [item["kind"] for item in items]
                self.assertEqual(kinds.count("user"), 20)
                self.assertEqual(kinds.count("tool_call"), 60)
                self.assertNotIn("error", kinds)
                outputs = [
                    json.loads(part["value"])["output"]
                    for item in items
                    if item["kind"] == "tool_result"
                    for part in item["content"]
                    if part.get("field") == "result"
                ]
                self.assertEqual(outputs, ["y" * 1000 + "\n"] * 60, "all 60 rounds byte for byte")

                rows = read(app, f"/sessions/{session}/requests?limit=200")["rows"]
                self.assertEqual(sum(row["kind"] == "summary" for row in rows), summaries)
                self.assertEqual(sum(row["kind"] == "turn" for row in rows), 80)

    def test_responses(self):
        self.check("responses")

    def test_chat_completions(self):
        self.check("chat_completions")


class EditedSettingsTest(unittest.TestCase):
    def test_an_edit_of_extensions_json_applies_without_a_restart(self):
        """The compaction settings are read again when extensions.json
        changes, as config.json is: an invalid trigger shows in /context
        at once, and a low one compacts the next request."""

        def script(request):
            return text("SUMMARY of the earlier messages") if is_summary(request) else text("answered")

        with Provider(script) as provider:
            providers = {"fixture": {"baseUrl": provider.url, "apiKey": "fixture-key", "model": "fixture-model",
                                     "protocol": "chat_completions", "contextWindow": WINDOW}}
            with Albedo(provider, providers=providers) as app:
                session = app.session()

                def edit(compaction):
                    (app.home / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}, "compaction": compaction}))

                def context():
                    with app.api(f"/sessions/{session}/context") as response:
                        return json.load(response)

                for message in ("first", "second"):
                    app.prompt(session, message).close()
                    app.idle(session)
                self.assertEqual(context()["problems"], [])
                edit({"triggerPercent": 500})
                problems = context()["problems"]
                self.assertEqual(len(problems), 1, problems)
                self.assertIn("triggerPercent", problems[0])
                self.assertFalse(any(is_summary(r["request"]) for r in provider.requests), "the default trigger compacted")

                edit({"triggerPercent": 1})
                self.assertEqual(context()["problems"], [])
                sent = len(provider.requests)
                app.prompt(session, "third").close()
                app.idle(session)
                self.assertTrue(is_summary(provider.requests[sent]["request"]), "the new trigger compacted the next request")
                self.assertEqual(context()["compaction"]["state"], "compacted")


class CompactionAcrossProtocolsTest(unittest.TestCase):
    def test_compact_switch_protocol_restart(self):
        """Compact under Responses, /model to a Chat Completions provider,
        restart: the next request starts from the same summary, and no new
        summary is asked for."""
        script = FullOnce()
        script.refused = 1
        with Provider(script) as provider:
            providers = {
                "resp": {"baseUrl": provider.url + "/resp/v1", "apiKey": "k1", "model": "resp-model", "protocol": "responses"},
                "chat": {"baseUrl": provider.url + "/chat/v1", "apiKey": "k2", "model": "chat-model", "protocol": "chat_completions"},
            }
            with Albedo(provider, providers=providers) as app:
                session = app.session()
                for message in ("first", "second"):
                    turn(app, session, message)
                with app.api(f"/sessions/{session}/commands", {"name": "/compact"}) as response:
                    self.assertEqual(json.load(response), {"result": {"started": True}})
                app.idle(session)
                self.assertTrue(is_summary(provider.requests[-1]["request"]))
                self.assertIn("/resp/v1/", provider.requests[-1]["path"])
                with app.api(f"/sessions/{session}/commands", {"name": "/model", "args": {"provider": "chat", "model": "chat-model"}}) as response:
                    self.assertEqual(json.load(response)["result"]["protocol"], "chat_completions")
                app.restart()
                sent = len(provider.requests)
                turn(app, session, "third")

                after = provider.requests[sent:]
                self.assertTrue(after)
                for record in after:
                    self.assertIn("/chat/v1/", record["path"])
                    self.assertFalse(is_summary(record["request"]), "a new summary was asked for")
                    messages = record["request"]["messages"]
                    users = [m for m in messages if m.get("role") == "user"]
                    self.assertTrue(content_text(users[0]).startswith("[summary of the earlier conversation]\nthe user asked for first and second"), users[0])
                    said = [content_text(m) for m in users[1:]]
                    self.assertEqual(len(said), 2, said)
                    self.assertEqual(said[0], "second")
                    self.assertTrue(said[1].startswith("third"), said)  # the restart adds the kernel note
                    calls_paired(self, record["request"])


class HeldSummary:
    """Answers each message with one python cell that appends a line to
    runs.txt, then text; refuses, as larger than the context, every turn
    request that carries "third" and no summary; holds the first summary
    request open until ``release`` is set, and answers later ones."""

    SUMMARY = "the user said first and second; a cell ran for each"

    def __init__(self):
        self.lock = threading.Lock()
        self.summaries = 0
        self.held = threading.Event()
        self.release = threading.Event()

    def __call__(self, request):
        if is_summary(request):
            with self.lock:
                self.summaries += 1
                first = self.summaries == 1
            if first:
                self.held.set()
                self.release.wait(60)
            return text(self.SUMMARY)
        body = body_text(request)
        entries = request.get("input") or request.get("messages") or []
        last = entries[-1] if entries else {}
        if "third" in body and "[summary of the earlier conversation]" not in body:
            return refusal(400, FULL)
        if last.get("role") == "user":
            return python("open('runs.txt', 'a').write('ran\\n')")
        return text("done")


def compactions(app) -> int:
    if app.database is not None:
        return int(app.database.query("SELECT count(*) FROM compactions").strip())
    with sqlite3.connect(f"file:{app.home / 'albedo.sqlite'}?mode=ro", uri=True) as db:
        return db.execute("SELECT count(*) FROM compactions").fetchone()[0]


class CrashDuringSummaryTest(unittest.TestCase):
    """kill -9 while the summary request is open: the next start, through
    the CLI, asks for the summary again and goes on from where it was."""

    def crash_while_held(self, app, provider, script):
        self.assertTrue(script.held.wait(30), "no summary request came")
        sent = len(provider.requests)
        app.restart(crash=True)
        script.release.set()
        app.idle(app.crashed_session)
        return [r["request"] for r in provider.requests[sent:]]

    def check_whole(self, app, session, before, after):
        self.assertEqual(after["items"][: len(before["items"])], before["items"], "history before the crash changed")
        kinds = [i["kind"] for i in after["items"]]
        self.assertNotIn("error", kinds)
        self.assertEqual(kinds.count("compaction"), 1)
        self.assertEqual(compactions(app), 1, "one compaction state")
        self.assertEqual(read(app, f"/sessions/{session}/context")["compaction"]["state"], "compacted")
        calls = kinds.count("tool_call")
        runs = (app.workspace / "runs.txt").read_text().splitlines()
        self.assertEqual(len(runs), calls, "a cell ran twice, or not at all")
        results = [i for i in after["items"] if i["kind"] == "tool_result"]
        self.assertEqual(len(results), calls)

    def test_a_turn_resumes_and_asks_for_the_summary_again(self):
        script = HeldSummary()
        with Provider(script) as provider, Albedo(provider) as app:
            session = app.crashed_session = app.session()
            for message in ("first", "second"):
                turn(app, session, message)
            app.prompt(session, "third")
            self.assertTrue(script.held.wait(30), "no summary request came")
            before = app.history(session)
            after_crash = self.crash_while_held(app, provider, script)

            self.assertEqual(script.summaries, 2)
            self.assertTrue(is_summary(after_crash[0]), "the resumed turn did not start with the summary")
            self.assertEqual([is_summary(r) for r in after_crash[1:]], [False, False], "the turn's requests after the summary")
            for request in after_crash[1:]:
                self.assertIn(HeldSummary.SUMMARY, body_text(request))
            after = app.history(session)
            self.check_whole(app, session, before, after)
            users = [(i.get("source"), i["text"]) for i in after["items"] if i["kind"] == "user"]
            self.assertEqual([u[1] for u in users[:3]], ["first", "second", "third"])
            self.assertEqual(users[3][0], "daemon restart")
            self.assertEqual(after["items"][-1], {**after["items"][-1], "kind": "turn", "text": "finished"})

    def test_a_compact_command_is_done_again(self):
        script = HeldSummary()
        with Provider(script) as provider, Albedo(provider) as app:
            session = app.crashed_session = app.session()
            for message in ("first", "second"):
                turn(app, session, message)
            before = app.history(session)
            with app.api(f"/sessions/{session}/commands", {"name": "/compact"}) as response:
                self.assertEqual(json.load(response), {"result": {"started": True}})
            after_crash = self.crash_while_held(app, provider, script)

            self.assertEqual(script.summaries, 2)
            self.assertEqual([is_summary(r) for r in after_crash], [True], "after the restart: the summary, and no turn")
            after = app.history(session)
            self.check_whole(app, session, before, after)
            self.assertEqual([i["kind"] for i in after["items"][len(before["items"]) :]], ["compaction"])


if __name__ == "__main__":
    unittest.main()
