"""Scripted model behaviours shared by albedo's own acceptance tests."""

from __future__ import annotations

from harness import python, text


def contents(item) -> str:
    """The text of a Chat message or Responses input item."""
    content = item.get("content", "")
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") for part in content if isinstance(part, dict))


def inputs_of(request) -> list:
    """The conversation a model request carries, in either protocol."""
    return request.get("messages", request.get("input", []))


def is_output(item) -> bool:
    """Whether an input item is a tool output, in either protocol."""
    return item.get("role") == "tool" or item.get("type") == "function_call_output"


def outputs_since_user(request) -> list:
    """The tool outputs that follow the latest user message."""
    items = inputs_of(request)
    last = max((i for i, item in enumerate(items) if item.get("role") == "user"), default=-1)
    return [item for item in items[last + 1:] if is_output(item)]


def latest_user(request) -> str:
    """The text of the latest user message."""
    return next((contents(i) for i in reversed(inputs_of(request)) if i.get("role") == "user"), "")


def by_prompt(replies: dict, *, answer: str = "done"):
    """A script that answers a prompt containing a key with that key's reply
    (usually a python call), and with ``answer`` once the cell has run."""

    def script(request):
        if outputs_since_user(request):
            return text(answer)
        user = latest_user(request)
        for key, reply in replies.items():
            if key in user:
                return reply
        return text(answer)

    return script


def cell_then_answer(code: str, answer: str, **reply):
    """A script that answers a prompt with a python cell running ``code``,
    and with ``answer`` (a text reply made with ``reply``) once it has run."""

    def script(request):
        return text(answer, **reply) if is_output(inputs_of(request)[-1]) else python(code)

    return script
