"""Any JSON string goes wherever the API takes text, and comes back as it was.

Random strings (a fixed seed per run, printed on failure) made of NUL and
other control characters, every plane of Unicode, lone surrogates escaped in
JSON and very long runs go through every text member of the API: a message,
a session name, a workspace path, a vent's fields and a reply. No answer is
ever a 5xx, and what is accepted reads back exactly. A lone surrogate is not
a character: the daemon's JSON decoder makes it U+FFFD, which is what must
come back (docs/api.md, "Text").
"""

from __future__ import annotations

import json
import os
import random
import re
import time
import unittest
import urllib.error

from harness import Albedo, Provider, python, text

SEED = int(os.environ.get("ALBEDO_ODD_TEXT_SEED") or time.time_ns() % 1_000_000)
ROUNDS = 12
"""Strings tried per field."""

LONE = re.compile("[\ud800-\udfff]")


def piece(rng: random.Random) -> str:
    """One run of a kind of text the store must keep."""
    kind = rng.randrange(9)
    if kind == 0:
        return "\x00" * rng.randint(1, 3)
    if kind == 1:
        return "".join(chr(rng.choice([*range(1, 32), 127, *range(0x80, 0xA0)])) for _ in range(rng.randint(1, 6)))
    if kind == 2:  # a lone surrogate, never next to another
        return "x" + chr(rng.randint(0xD800, 0xDFFF)) + "x"
    if kind == 3:  # astral planes 1 to 16
        return "".join(chr(rng.randint(0x10000, 0x10FFFF)) for _ in range(rng.randint(1, 4)))
    if kind == 4:
        return rng.choice(["'", "''", '"', "\\", "?", "$1", ":x", "%s", "--", ";", "/*"])
    if kind == 5:
        return "".join(chr(rng.choice([rng.randint(0xA0, 0xD7FF), rng.randint(0xE000, 0xFFFF)])) for _ in range(rng.randint(1, 8)))
    if kind == 6:
        return "\ufeff\ufffe\uffff"
    if kind == 7:
        return rng.choice(["a", "é", "中", "\U0001F600"]) * rng.choice([1, 1000, 100_000])
    return "plain words"


def odd(rng: random.Random, longest: int | None = None) -> str:
    """A random string of a few pieces, at most longest characters."""
    s = "".join(piece(rng) for _ in range(rng.randint(1, 4)))
    if longest is not None:
        s = s[:longest]
        if s and LONE.match(s[-1]):  # do not leave half of a pair pattern
            s = s[:-1] + "x"
    return s


def decoded(s: str) -> str:
    """What the daemon holds for s once JSON-decoded: lone surrogates become
    U+FFFD."""
    return LONE.sub("\ufffd", s)


GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
"""What Go's unicode.IsSpace calls white space."""


def trimmed(s: str) -> str:
    """A session name as the domain keeps it: without surrounding white
    space (docs/api.md)."""
    return s.strip(GO_SPACE)


class OddTextTest(unittest.TestCase):
    def setUp(self):
        self.rng = random.Random(SEED)

    def request(self, app, path, body=None, *, method=None, headers=None):
        """Sends body as JSON (lone surrogates escaped, as json.dumps does) and
        returns (status, decoded body, headers); a 5xx fails the test."""
        try:
            with app.api(path, body, method=method, headers=headers) as response:
                raw = response.read()
                status, answer_headers = response.status, response.headers
        except urllib.error.HTTPError as error:
            raw, status, answer_headers = error.read(), error.code, error.headers
        self.assertLess(status, 500, f"seed {SEED}: {method or 'POST' if body is not None else 'GET'} {path} answered {status}: {raw[:500]!r}\n{app._log_tail(2000)}")
        try:
            value = json.loads(raw) if raw else None
        except ValueError:
            value = raw
        return status, value, answer_headers

    def test_every_text_field_round_trips(self):
        calls = []

        def model(request):
            last = request["messages"][-1]
            if last.get("role") == "tool":
                return text("filed")
            if calls:
                return python(calls.pop(0))
            return text("ok")

        provider = Provider(model)
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()

            # Messages.
            sent = []
            for _ in range(ROUNDS):
                content = odd(self.rng)
                status, _, _ = self.request(app, f"/sessions/{session}/events", {"content": content})
                if status < 300:
                    sent.append(decoded(content))
                app.idle(session)
            users = [e["text"] for e in app.events(session) if e.get("type") == "user" and not e.get("source")]
            self.assertEqual(users, sent, f"seed {SEED}: messages did not come back as sent")

            # Session names (at most 100 characters are taken).
            for _ in range(ROUNDS):
                name = odd(self.rng, longest=self.rng.choice([None, 100]))
                _, _, headers = self.request(app, f"/sessions/{session}?view=configuration")
                status, config, _ = self.request(
                    app, f"/sessions/{session}?view=configuration", {"name": name},
                    method="PATCH", headers={"If-Match": headers["ETag"]},
                )
                if status < 300:
                    self.assertEqual(config["name"], trimmed(decoded(name)), f"seed {SEED}: name")
                    _, again, _ = self.request(app, f"/sessions/{session}?view=configuration")
                    self.assertEqual(again["name"], trimmed(decoded(name)), f"seed {SEED}: name read again")

            # Workspace paths: folders that exist get sessions; any other
            # string is refused with a 4xx.
            for _ in range(ROUNDS):
                raw = odd(self.rng, longest=60)
                self.request(app, "/sessions", {"workspace": "/" + raw})
                folder_name = decoded(raw).replace("\x00", "").replace("/", "")
                while len(folder_name.encode("utf-8", "surrogatepass")) > 200:
                    folder_name = folder_name[:-1]
                if folder_name in ("", ".", ".."):
                    continue
                folder = app.workspace / folder_name
                folder.mkdir(exist_ok=True)
                status, made, _ = self.request(app, "/sessions", {"workspace": str(folder)})
                self.assertLess(status, 300, f"seed {SEED}: an existing folder {folder!r} was refused: {made}")
                _, listed, _ = self.request(app, "/sessions")
                self.assertEqual(next(s["workspace"] for s in listed if s["id"] == made["id"]), str(folder), f"seed {SEED}: workspace")

            # Vent fields, filed by the model's Python, and replies.
            wanted = []
            for _ in range(ROUNDS // 2):
                fields = {"message": "m " + odd(self.rng, longest=400), "suggestion": odd(self.rng, longest=400), "title": odd(self.rng, longest=100)}
                wanted.append({k: decoded(v) for k, v in fields.items()})
                calls.append(
                    "await vent('harness', " + repr(fields["message"]) + ", suggestion=" + repr(fields["suggestion"]) + ", title=" + repr(fields["title"]) + ")"
                )
            pending = len(calls)
            for _ in range(pending):
                self.request(app, f"/sessions/{session}/events", {"content": "file the next vent"})
                app.idle(session)
            _, page, _ = self.request(app, "/extensions/paperclips/items")
            vents = [item["value"] for item in reversed(page["items"])]
            got = [{k: v[k] for k in ("message", "suggestion", "title")} for v in vents]
            self.assertEqual(got, wanted, f"seed {SEED}: vent fields")
            for item in page["items"]:
                reply = odd(self.rng, longest=self.rng.choice([None, 2000]))
                status, answer, _ = self.request(
                    app, f"/extensions/paperclips/items/{item['value']['id']}", {"reply": reply},
                    method="PATCH", headers={"If-Match": str(item["value"]["revision"])},
                )
                if status < 300:
                    _, stored, _ = self.request(app, f"/extensions/paperclips/items/{item['value']['id']}")
                    self.assertEqual(stored["value"]["reply"], decoded(reply), f"seed {SEED}: reply")


if __name__ == "__main__":
    unittest.main()
