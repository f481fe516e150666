"""A scripted MCP server over stdio (newline-delimited JSON-RPC), standard
library only, for the acceptance tests.

Its tools: echo (says its arguments back), env (its environment), fail
(an isError result), hang (never answers), crash (exits), big (1 MiB of
text), picture (a PNG image), whoami (its pid), rpcerror (a JSON-RPC
error), shout (writes to stderr, then answers), grow (adds the tool
extra and tells the client its list changed); hang writes "hanging" to
stderr before it never answers. A resource fake://note and a prompt
greet(who). Each --tool=NAME adds an echo tool of that name;
--big-schema gives every tool a schema of 40 KiB. Started with
``--marker=TEXT`` so that the tests can find its processes; with
``--child`` it starts a sleeping child in its process group too, as npx
does. With ``--list-gate=FIFO`` its first tools/list writes "listing held"
to stderr and waits until the FIFO is opened for writing and closed.
"""

import base64
import json
import os
import subprocess
import sys
import zlib
import struct


def png() -> bytes:
    """A 1x1 PNG."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"\x00\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}
if "--big-schema" in sys.argv:
    OBJECT["description"] = "x" * (40 << 10)
TOOLS = [
    {"name": name, "description": description, "inputSchema": OBJECT}
    for name, description in (
        ("echo", "Says its arguments back."),
        ("env", "Its environment."),
        ("fail", "Fails."),
        ("hang", "Never answers."),
        ("crash", "Exits."),
        ("big", "One MiB of text."),
        ("picture", "A PNG."),
        ("whoami", "Its pid."),
        ("rpcerror", "Answers a JSON-RPC error."),
        ("shout", "Writes to stderr."),
        ("grow", "Adds the tool extra."),
    )
] + [{"name": a[len("--tool="):], "description": "Says its arguments back.", "inputSchema": OBJECT} for a in sys.argv if a.startswith("--tool=")]

EXTRA = {"name": "extra", "description": "Added by grow.", "inputSchema": OBJECT}


def text(value, error=False):
    return {"content": [{"type": "text", "text": value}], "isError": error}


def answer(name, arguments):
    """The result of tool name, None for no answer."""
    if name == "echo":
        return text("echo: " + json.dumps(arguments, sort_keys=True))
    if name == "env":
        return text("\n".join(f"{k}={v}" for k, v in sorted(os.environ.items())))
    if name == "fail":
        return text("it broke", error=True)
    if name == "hang":
        print("hanging", file=sys.stderr, flush=True)
        return None
    if name == "crash":
        print("crashing on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    if name == "big":
        return text("HEAD" + "x" * (1 << 20) + "TAIL")
    if name == "picture":
        return {"content": [{"type": "image", "mimeType": "image/png", "data": base64.b64encode(png()).decode()}]}
    if name == "whoami":
        return text(str(os.getpid()))
    if name == "shout":
        print("shouting to stderr", file=sys.stderr, flush=True)
        return text("shouted")
    if name == "extra" and EXTRA in TOOLS:
        return text("extra: " + str(arguments.get("text")))
    if any(t["name"] == name for t in TOOLS):
        return text("echo: " + json.dumps(arguments, sort_keys=True))
    return text(f"no tool {name}", error=True)


GATES = [a[len("--list-gate="):] for a in sys.argv if a.startswith("--list-gate=")]


def hold_listing():
    """Waits, at the first listing only, for the gate's writer."""
    while GATES:
        print("listing held", file=sys.stderr, flush=True)
        with open(GATES.pop(), "rb") as gate:
            gate.read()


def main():
    if "--child" in sys.argv:
        marker = next((a for a in sys.argv if a.startswith("--marker=")), "--marker=")
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", marker + "-child"])
    print("fake mcp server starting", file=sys.stderr, flush=True)
    out = sys.stdout
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            continue  # a notification
        params = message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": True}, "resources": {}, "prompts": {}},
                "serverInfo": {"name": "fake", "version": "1"},
            }
        elif method == "tools/list":
            hold_listing()
            result = {"tools": TOOLS}
        elif method == "tools/call" and params.get("name") == "rpcerror":
            out.write(json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32000, "message": "no database"}}) + "\n")
            out.flush()
            continue
        elif method == "tools/call" and params.get("name") == "grow":
            if EXTRA not in TOOLS:
                TOOLS.append(EXTRA)
            out.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": text("grew")}) + "\n")
            out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}) + "\n")
            out.flush()
            continue
        elif method == "tools/call":
            result = answer(params.get("name"), params.get("arguments") or {})
            if result is None:
                continue
        elif method == "resources/list":
            result = {"resources": [{"uri": "fake://note", "name": "note", "mimeType": "text/plain"}]}
        elif method == "resources/templates/list":
            result = {"resourceTemplates": []}
        elif method == "resources/read":
            result = {"contents": [{"uri": params.get("uri"), "mimeType": "text/plain", "text": "a note"}]}
        elif method == "prompts/list":
            result = {"prompts": [{"name": "greet", "arguments": [{"name": "who", "required": True}]}]}
        elif method == "prompts/get":
            who = (params.get("arguments") or {}).get("who", "")
            result = {"messages": [{"role": "user", "content": {"type": "text", "text": "hello " + who}}]}
        elif method == "ping":
            result = {}
        else:
            out.write(json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no method " + str(method)}}) + "\n")
            out.flush()
            continue
        out.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
