"""A fake model server for the benchmarks that time tool rounds: it answers
every request at once with a short canned stream, a python call or a text,
over Chat Completions or Responses, without decoding or keeping the
request, so that its own cost does not grow with the transcript."""

from __future__ import annotations

import json
from pathlib import Path
import sys
import threading

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "acceptance"))
sys.dont_write_bytecode = True

from harness import LocalServer, QuietHandler  # noqa: E402


def chat_stream(number, arguments, prompt_tokens):
    """A Chat Completions stream: a python call with these arguments (a
    JSON string), or a text "done" when arguments is None."""
    if arguments is not None:
        delta = {"tool_calls": [{"index": 0, "id": f"call-{number}", "type": "function",
                                 "function": {"name": "python", "arguments": arguments}}]}
        finish = "tool_calls"
    else:
        delta, finish = {"content": "done"}, "stop"
    chunks = [
        {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {"choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 8,
                                  "total_tokens": prompt_tokens + 8}},
    ]
    return "".join("data: " + json.dumps(c) + "\n\n" for c in chunks) + "data: [DONE]\n\n"


def responses_stream(number, arguments, prompt_tokens):
    """A Responses stream: a python call with these arguments, or a text
    "done" when arguments is None."""
    if arguments is not None:
        item = {"type": "function_call", "id": f"fc_{number}", "call_id": f"call-{number}", "name": "python",
                "arguments": arguments, "status": "completed"}
    else:
        item = {"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    completed = {"type": "response.completed", "response": {
        "id": f"resp_{number}", "status": "completed", "output": [item],
        "usage": {"input_tokens": prompt_tokens, "output_tokens": 8, "total_tokens": prompt_tokens + 8}}}
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in (done, completed))


class CannedProvider:
    """A model server that answers each request at once. answer(number,
    body) is called as request `number` (from 1) arrives, with its raw
    body, and returns the arguments of the python call to make (a JSON
    string) or None for a text, and the prompt tokens to report."""

    def __init__(self, answer):
        self.count = 0
        lock = threading.Lock()
        owner = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with lock:
                    owner.count += 1
                    number = owner.count
                arguments, prompt_tokens = answer(number, body)
                stream = chat_stream if self.path.endswith("/chat/completions") else responses_stream
                reply = stream(number, arguments, prompt_tokens).encode()
                self.reply(200, reply, content_type="text/event-stream")

        self._local = LocalServer(Handler)
        self._local.server.daemon_threads = True
        self.url = self._local.url

    def close(self):
        self._local.close()


def is_tool_output(body):
    """Whether a raw request body carries a tool's output (either protocol)."""
    return b"function_call_output" in body or b'"role":"tool"' in body
