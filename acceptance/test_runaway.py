"""A runaway provider cannot take the daemon down: whatever grows without
end in its stream (answer text, reasoning, one call's arguments, one line
with no newline, one event), the turn ends at the reply cap with an error
that names the cap and the provider, what arrived before the cap is kept,
other sessions are served all along, and the daemon's memory stays
bounded."""

from __future__ import annotations

import json
import unittest

from footprint import MIB, RunawayProvider, peak, reset_peak, served_until_idle
from harness import Albedo, exclusive

CAP = 8 * MIB
"""The documented default cap on one reply item or stream event."""

PEAK_MB = 150


@exclusive
class RunawayProviderTest(unittest.TestCase):
    def test_chat_completions(self):
        self.runaways("chat_completions")

    def test_responses(self):
        self.runaways("responses")

    def runaways(self, protocol):
        provider = RunawayProvider(protocol)
        try:
            with Albedo(provider, protocol=protocol) as app:
                other = app.session()
                app.prompt(other, "short").close()
                app.idle(other)
                cases = [
                    # shape, the kind of the item kept, how it starts, what the error names
                    ("answer", "assistant", "before the runaway y", "an answer"),
                    ("reasoning", "reasoning", "before the runaway y", "reasoning"),
                    ("call", "note", '{"code": "s = \\"y', "a call's arguments"),
                    ("line", "assistant", "before the runaway", "a stream line"),
                    ("event", "assistant", "before the runaway", "a stream event"),
                ]
                for shape, kind, start, what in cases:
                    with self.subTest(protocol=protocol, shape=shape):
                        self.runaway(app, provider, other, shape, kind, start, what)
        finally:
            provider.close()

    def runaway(self, app, provider, other, shape, kind, start, what):
        session = app.session()
        reset_peak(app)
        app.prompt(session, f"a runaway {shape} please").close()
        self.assertGreater(served_until_idle(self, app, session, other), 0)
        self.assertLess(peak(app), PEAK_MB, f"peak RSS in MB while a runaway {shape} streamed")
        self.assertLess(provider.written[-1], 1 << 30, "the daemon read the runaway stream to its end")
        items = app.history(session)["items"]
        errors = [i for i in items if i["kind"] == "error"]
        self.assertEqual(len(errors), 1, items[-3:])
        message = errors[0]["text"]
        self.assertIn(f"sent {what} longer than the 8 MiB cap", message)
        self.assertIn('provider "fixture"', message)
        kept = [i for i in items if i["kind"] == kind]
        self.assertEqual(len(kept), 1, f"no {kind} kept: {[i['kind'] for i in items]}")
        text = kept[0]["text"]
        self.assertTrue(text.startswith(start), text[:60])
        with app.api(f"/sessions/{session}?tail=10") as response:
            shown = [e for e in json.load(response)["events"] if e.get("text", "").startswith(start)]
        self.assertTrue(shown and shown[-1].get("partial"), "the kept text is not marked cut")
        if shape in ("line", "event"):
            self.assertEqual(text, start)
        else:
            # cut at the cap: all of it that fits
            self.assertLessEqual(len(text.encode()), CAP)
            self.assertGreater(len(text.encode()), CAP - 32 * 1024)
        self.assertFalse([i for i in items if i["kind"] == "tool_call"], "a cut call is never kept as a call")


if __name__ == "__main__":
    unittest.main()
