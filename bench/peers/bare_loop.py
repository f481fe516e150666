"""A bare agent loop, the peer albedo's cold start is measured against.

    python3 bench/peers/bare_loop.py CONFIG PROMPT

It does what any agent loop does before its first model request and no
more: reads a config.json of albedo's shape (the active provider's base
URL, key and model), sends the prompt with short instructions and one
python tool as a streamed Chat Completions request, and prints the
answer's text; a python call's code runs in a fresh python3 and its
output goes back to the model, until the model answers with text. No
daemon, no store, no sandbox.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

TOOL = {"type": "function", "function": {
    "name": "python", "description": "Run Python code in the workspace.",
    "parameters": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}


def ask(provider, messages):
    """One streamed request; returns the text and the tool calls."""
    body = json.dumps({"model": provider["model"], "messages": messages, "tools": [TOOL], "stream": True}).encode()
    request = urllib.request.Request(provider["baseUrl"].rstrip("/") + "/chat/completions", body, {
        "Content-Type": "application/json", "Authorization": "Bearer " + provider.get("apiKey", "")})
    text, calls = "", {}
    with urllib.request.urlopen(request) as stream:
        for line in stream:
            line = line.strip()
            if not line.startswith(b"data: ") or line == b"data: [DONE]":
                continue
            for choice in json.loads(line[6:]).get("choices", []):
                delta = choice.get("delta", {})
                text += delta.get("content") or ""
                for call in delta.get("tool_calls") or []:
                    c = calls.setdefault(call["index"], {"id": "", "arguments": ""})
                    c["id"] = call.get("id") or c["id"]
                    c["arguments"] += call.get("function", {}).get("arguments") or ""
    return text, list(calls.values())


def main():
    with open(sys.argv[1]) as f:
        config = json.load(f)
    provider = config["providers"][config["active"]]
    messages = [{"role": "system", "content": "You are a coding agent. Use the python tool."},
                {"role": "user", "content": sys.argv[2]}]
    while True:
        text, calls = ask(provider, messages)
        if not calls:
            print(text)
            return
        messages.append({"role": "assistant", "content": text or None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": "python", "arguments": c["arguments"]}}
            for c in calls]})
        for c in calls:
            code = json.loads(c["arguments"]).get("code", "")
            run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": run.stdout + run.stderr})


if __name__ == "__main__":
    main()
