"""Real provider streams, replayed to the daemon.

Every recording under ``../shared/wire/recordings`` (what real model servers
sent) answers a turn of its own session, and the test checks what a user of
albedo then sees in the session's events: the answer, the thinking, the tool
calls run and paired with their outputs, refusals, cut answers, notes, the
provider's own error message and how the turn ended. Tool calls are adapted
as the corpus README allows, in their name and arguments only: they become
``python`` calls that print their call id. The harness checks every request
albedo sends on the way against the published request schemas.
"""

from __future__ import annotations

import json
from pathlib import Path
import socket
import threading
import unittest

import harness
from harness import REPO, Albedo, Provider, recorded, text, turn

RECORDINGS = REPO.parent / "shared" / "wire" / "recordings"

ARGS = json.dumps({"code": "print('ran')", "timeout_ms": 60000})

CUT = "answer cut: the model hit its output limit"

# file: (protocol, what the user sees). answer and thinking are the start of
# the text shown; calls counts python cells run; failure is part of the
# error shown; partial is the text kept before it; usage is the first
# reply's tokens on the live stream, "input/cached/output/reasoning" with
# "-" for a count the provider did not report.
EXPECTED = {
    "alibaba-qwen-tool-call.jsonl": ("chat_completions", {"usage": "295/0/22/-", "calls": 1}),
    "azure-chat-model-router.jsonl": ("chat_completions", {"usage": "15/0/78/64", "answer": "Capital of Denmark."}),
    "copilot-claude-tool-index1.sse": ("chat_completions", {"usage": "25939/25429/58/-", "answer": "Now listing your Coder workspaces:", "calls": 1}),
    "copilot-responses-id-rotation.jsonl": ("responses", {"usage": "19/0/105/44", "answer": "There are **3** letter", "thinking": "**Counting character occurrences**"}),
    "deepseek-reasoner-text.jsonl": ("chat_completions", {"usage": "18/0/219/205", "answer": 'The word "strawberry" contains three "r"s.', "thinking": "We need to count"}),
    "deepseek-reasoner-tool-call.jsonl": ("chat_completions", {"usage": "339/320/83/39", "calls": 1, "thinking": "The user is asking for the weather"}),
    "groq-reasoning.jsonl": ("chat_completions", {"usage": "17/-/1107/963", "answer": 'The word **"strawberry"**', "thinking": "Okay, let me try"}),
    "groq-tool-call.jsonl": ("chat_completions", {"usage": "210/-/15/-", "calls": 1}),
    "llamacpp-error-field.sse": ("chat_completions", {"failure": "the request exceeds the available context size"}),
    "lmstudio-responses-text.jsonl": ("responses", {"usage": "31/30/282/0", "answer": "## The Festival of Whispering Leaves"}),
    "lmstudio-responses-tool-call.jsonl": ("responses", {"usage": "182/2/61/48", "answer": "I'll get the current weather", "calls": 1, "thinking": "The user is asking"}),
    "mistral-glm-tool-call.jsonl": ("chat_completions", {"usage": "171/128/14/-", "calls": 1}),
    "mistral-magistral-thinking.jsonl": ("chat_completions", {"usage": "10/-/46/-", "answer": "2 + 2 = 4", "thinking": "The user is asking for 2+2."}),
    "openai-chat-length.sse": ("chat_completions", {"usage": "79/-/1/0", "answer": '{"', "truncated": True}),
    "openai-chat-n3.sse": ("chat_completions", {"usage": "79/-/42/0", "answer": '{"city":"San Francisco","temperature":65,"units":"f"}'}),
    "openai-chat-parallel-tools.sse": ("chat_completions", {"usage": "149/-/60/0", "calls": 2}),
    "openai-chat-refusal.sse": ("chat_completions", {"usage": "79/-/11/0", "answer": "I'm sorry, I can't assist with that request.", "refusal": True}),
    "openai-chat-stream-error.sse": ("chat_completions", {"failure": "The server had an error while processing your request", "partial": 'The question "'}),
    "openai-chat-text.sse": ("chat_completions", {"usage": "14/-/30/0", "answer": "I'm unable to provide real-time weather updates."}),
    "openai-responses-parallel-calls.sse": ("responses", {"usage": "65/0/30/0", "calls": 2, "thinking": "The user wants two additions"}),
    "openai-responses-phase.jsonl": ("responses", {"usage": "7112/3072/463/64", "commentary": "Got it", "answer": "Here are a few **AI headlines"}),
    "openai-responses-quota-error.jsonl": ("responses", {"failure": "You exceeded your current quota"}),
    "openai-responses-reasoning-encrypted-tool.jsonl": ("responses", {"usage": "134/0/28/0", "calls": 3, "thinking": "**Calculating step-by-step", "answer": "The final result is **570**."}),
    "openai-responses-stream-error.sse": ("responses", {"failure": "Something went wrong", "partial": "Hello"}),
    "openai-responses-stream-failure.sse": ("responses", {"failure": "The model failed to generate a response.", "partial": "Hello"}),
    "openai-responses-text.sse": ("responses", {"usage": "11/0/18/0", "answer": "Why did the scarecrow win an award?"}),
    "openai-responses-web-search.jsonl": ("responses", {"usage": "31073/3712/4416/3712", "answer": "I checked today’s tech headlines", "notes": 6}),
    "vllm-error-then-done.sse": ("chat_completions", {"failure": "The decoder prompt (length 9000) is longer than the maximum model length of 8192."}),
    "vllm-old-error-then-done.sse": ("chat_completions", {"failure": "The decoder prompt (length 9000) is longer than the maximum model length of 8192."}),
    "xai-grok-tool-call.jsonl": ("chat_completions", {"usage": "291/290/26/196", "calls": 1, "thinking": "First, the user is"}),
    "xai-responses-reasoning-store-false.jsonl": ("responses", {"usage": "216/192/831/253", "answer": "### Overview of Sonoran Cuisine", "thinking": "First, the question is"}),
}


def bodies(path: Path) -> list[bytes]:
    """The response bodies of a recording, as its README says to replay it."""
    raw = path.read_bytes()
    if path.suffix == ".sse":
        return [adapt_sse(raw)]
    out: list[bytes] = []
    current: list[bytes] = []
    for line in raw.decode("utf-8").splitlines():
        if not line.strip():
            continue
        if '"type":"response.created"' in line and current:
            out.append(b"".join(current) + b"data: [DONE]\n\n")
            current = []
        current.append(b"data: " + adapt(line).encode("utf-8") + b"\n\n")
    if current:
        out.append(b"".join(current) + b"data: [DONE]\n\n")
    return out


def adapt_sse(raw: bytes) -> bytes:
    """Adapts the data lines of a raw stream, keeping its framing."""
    out = []
    for line in raw.decode("utf-8").splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.startswith("data: {"):
            line = "data: " + adapt(body[6:]) + line[len(body):]
        out.append(line)
    return "".join(out).encode("utf-8")


def adapt(data: str) -> str:
    """Makes the tool calls of one event python calls: name and arguments
    only, the rest byte for byte."""
    if '"function' not in data and "tool_calls" not in data:
        return data
    event = json.loads(data)
    seen = set()

    def call_item(item):
        if isinstance(item, dict) and item.get("type") == "function_call":
            item["name"] = "python"
            if item.get("arguments"):
                item["arguments"] = ARGS

    for choice in event.get("choices") or []:
        for call in (choice.get("delta") or {}).get("tool_calls") or []:
            function = call.get("function") or {}
            if function.get("name"):
                function["name"] = "python"
            if "arguments" in function:
                key = call.get("index")
                function["arguments"] = ARGS if key not in _started else ""
                seen.add(key)
    _started.update(seen)
    kind = event.get("type", "")
    if kind in ("response.output_item.added", "response.output_item.done"):
        call_item(event.get("item"))
    elif kind == "response.function_call_arguments.delta":
        key = ("delta", event.get("item_id"), event.get("output_index"))
        event["delta"] = ARGS if key not in _started else ""
        _started.add(key)
    elif kind == "response.function_call_arguments.done":
        event["arguments"] = ARGS
    elif kind in ("response.completed", "response.incomplete"):
        for item in (event.get("response") or {}).get("output") or []:
            call_item(item)
    return json.dumps(event, ensure_ascii=False)


_started: set = set()
"""Tool call fragments already given their arguments (per recording)."""


class Replay:
    """A script that answers each request with the next recorded body, then
    with a short text (so a turn whose recording ends in tool calls ends)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.queue: list[bytes] = []

    def load(self, queue: list[bytes]) -> None:
        with self.lock:
            self.queue = list(queue)

    def __call__(self, request):
        with self.lock:
            if self.queue:
                return recorded(self.queue.pop(0))
        return text("done")


class LiveUsage:
    """Reads a session's live stream in the background until its turn ends,
    keeping the usage of every status event; ready is set once the stream's
    snapshot arrived."""

    def __init__(self, app, session):
        self.usage: list[dict] = []
        self.ready = threading.Event()
        self.response = app.api(f"/sessions/{session}/stream")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        running = False
        with self.response as response:
            for line in response:
                if not line.startswith(b"data: "):
                    continue
                self.ready.set()  # the snapshot came: live events follow
                for event in json.loads(line[6:])["events"]:
                    if event.get("type") != "status":
                        continue
                    if event.get("usage") is not None:
                        self.usage.append(event["usage"])
                    if event.get("running") is True:
                        running = True
                    elif event.get("running") is False and running:
                        return


def usage_text(usage: dict) -> str:
    """Renders usage as "input/cached/output/reasoning", "-" for null."""
    keys = ("input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens")
    return "/".join("-" if usage.get(k) is None else str(usage[k]) for k in keys)


@unittest.skipUnless(RECORDINGS.is_dir(), f"no provider recordings at {RECORDINGS}")
class WireReplayTest(unittest.TestCase):
    def test_every_recording_shows_the_user_what_its_stream_carries(self):
        files = sorted(p.name for p in RECORDINGS.iterdir())
        self.assertEqual(sorted(set(files) - set(EXPECTED)), [], "recordings without an expectation")
        replay = Replay()
        with Provider(replay) as provider:
            settings = {"apiKey": "wire-key", "baseUrl": provider.url}
            providers = {
                "chat": {**settings, "model": "recorded-chat", "protocol": "chat_completions", "reasoningContent": True},
                "responses": {**settings, "model": "gpt-5", "protocol": "responses"},
            }
            with Albedo(providers=providers) as app:
                for name in files:
                    protocol, want = EXPECTED[name]
                    with self.subTest(recording=name):
                        _started.clear()
                        replay.load(bodies(RECORDINGS / name))
                        self.check(app, protocol, want)

    def check(self, app, protocol, want):
        provider = "chat" if protocol == "chat_completions" else "responses"
        with app.api("/sessions", {"workspace": str(app.workspace), "provider": provider}) as response:
            session = json.load(response)["id"]
        live = LiveUsage(app, session)
        self.assertTrue(live.ready.wait(30), "the stream sent no snapshot")
        turn(app, session, "Hello")
        live.thread.join(timeout=30)
        if "usage" in want:
            self.assertTrue(live.usage, "no usage on the live stream")
            self.assertEqual(usage_text(live.usage[0]), want["usage"], live.usage[0])
        events = app.events(session)
        messages = [e for e in events if e["type"] == "message" and e.get("phase") != "commentary"]
        commentary = [e for e in events if e.get("phase") == "commentary"]
        thinking = "".join(e.get("text", "") for e in events if e["type"] == "thinking")
        calls = [e for e in events if e["type"] == "tool_call"]
        outputs = [e for e in events if e["type"] == "tool"]
        errors = [e for e in events if e["type"] == "error"]
        notes = [e for e in events if e["type"] == "note"]
        turns = [e.get("status") for e in events if e["type"] == "turn"]

        self.assertEqual(len(calls), want.get("calls", 0), "python cells run")
        self.assertEqual(sorted(c["call_id"] for c in calls), sorted(o["call_id"] for o in outputs), "calls paired with outputs")
        for out in outputs:
            self.assertEqual(out.get("status"), "ok", out)
            self.assertIn("ran", json.loads(out["result"]).get("output", ""), out)
        self.assertEqual(len(notes), want.get("notes", 0), "notes")
        if "thinking" in want:
            self.assertTrue(thinking.startswith(want["thinking"]), thinking[:200])
        if "commentary" in want:
            self.assertTrue(commentary and commentary[0]["text"].startswith(want["commentary"]), commentary)
        if "failure" in want:
            self.assertEqual(turns, ["failed"], events)
            self.assertEqual(len(errors), 1, events)
            self.assertIn(want["failure"], errors[0]["text"])
            kept = [m for m in messages if m.get("partial")]
            if "partial" in want:
                self.assertEqual([m["text"] for m in kept], [want["partial"]], "text kept before the failure")
            else:
                self.assertEqual(messages, [], "nothing shown as an answer")
            return
        self.assertEqual(turns, ["finished"], events)
        self.assertEqual(errors, [])
        answer = messages[-1] if messages else {}
        if "answer" in want:
            shown = [m for m in messages if m.get("text", "").startswith(want["answer"])]
            self.assertEqual(len(shown), 1, [m.get("text", "")[:80] for m in messages])
            answer = shown[0]
        if "calls" in want and "answer" not in want:
            self.assertEqual(messages[-1].get("text"), "done", "the turn ends with the answer after the cells")
        self.assertEqual(bool(answer.get("refusal")), want.get("refusal", False), answer)
        self.assertEqual(bool(answer.get("truncated")), want.get("truncated", False), answer)
        if want.get("truncated"):
            self.assertEqual(answer.get("notice"), CUT)
        self.assertFalse(any(m.get("partial") for m in messages), messages)


class AbandonedRequestTest(unittest.TestCase):
    def test_a_request_given_up_before_its_body_is_neither_recorded_nor_checked(self):
        """albedo sends a request's headers before its body; a turn
        interrupted in between closes the connection with no body sent."""
        with Provider(lambda request: text("unused")) as provider:
            port = int(provider.url.rsplit(":", 1)[1])
            with socket.create_connection(("127.0.0.1", port)) as conn:
                conn.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: model\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n")
                conn.shutdown(socket.SHUT_WR)
                self.assertEqual(conn.recv(1), b"", "the provider closes the connection without an answer")
            self.assertEqual(provider.requests, [])
            self.assertEqual(harness.WIRE_CHECKS.take(), [])


if __name__ == "__main__":
    unittest.main()
