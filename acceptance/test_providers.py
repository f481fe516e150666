"""Providers: binding, live configuration, /model and the secrecy of keys."""

from __future__ import annotations

import json
import threading
import unittest

from harness import Albedo, LocalServer, Provider, QuietHandler, http_error, python, read, text, turn
from scripts import by_prompt

SECRET = "sk-never-shown-anywhere-4242"


class RefusingProvider(LocalServer):
    """A model server that refuses every request and echoes the key back."""

    def __init__(self):
        class Handler(QuietHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.reply(401, json.dumps({"error": {"message": "invalid api key " + self.headers.get("Authorization", "")}}).encode())

        super().__init__(Handler)


class ProviderTest(unittest.TestCase):
    def test_a_refused_request_is_shown_without_the_key_and_the_session_lives_on(self):
        refusing = RefusingProvider()
        self.addCleanup(refusing.close)
        providers = {"strict": {"baseUrl": refusing.url + "/v1", "apiKey": SECRET, "model": "m", "protocol": "chat_completions"}}
        with Albedo(providers=providers) as app:
            (app.home / "config.json").write_text(json.dumps({"active": "strict", "providers": providers}))
            session = app.session()
            turn(app, session, "hello")
            events = app.events(session)
            errors = [e for e in events if e.get("type") == "error"]
            self.assertEqual(len(errors), 1)
            self.assertIn("401", errors[0]["text"])
            self.assertTrue(any(e.get("type") == "turn" and e.get("status") == "failed" for e in events))
            exposed = json.dumps(events) + json.dumps(read(app, "/sessions")) + json.dumps(app.history(session))
            exposed += (app.home / "daemon.log").read_text()
            self.assertNotIn(SECRET, exposed)
            self.assertFalse(read(app, f"/sessions/{session}/status")["running"])

    def test_model_command_refuses_bad_input_and_changes_nothing(self):
        provider = Provider(lambda request: text("ok"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            route = f"/sessions/{session}/commands"
            before = read(app, "/sessions")
            config = (app.home / "config.json").read_text()
            cases = [
                ({"name": "/model", "args": {"model": "  "}}, 400),
                ({"name": "/model", "args": {"provider": "nobody", "model": "m"}}, 409),
                ({"name": "/model", "args": {"model": "m", "effort": "extreme"}}, 400),
                ({"name": "/model", "args": {"model": 7}}, 400),
                ({"name": "/teleport", "args": {}}, 400),
                ({"name": "/model", "args": "not an object"}, 400),
            ]
            for body, status in cases:
                with self.subTest(body=body):
                    code, failure = http_error(self, lambda: app.api(route, body))
                    self.assertEqual(code, status, failure)
                    self.assertTrue(failure["error"])
                    self.assertTrue(failure["code"])
            _, unknown = http_error(self, lambda: app.api(route, {"name": "/teleport"}))
            self.assertIn("/model", unknown["error"])
            self.assertEqual(read(app, "/sessions"), before)
            self.assertEqual((app.home / "config.json").read_text(), config)

    def test_effort_is_reported_and_sent_in_the_protocols_own_field(self):
        provider = Provider(lambda request: text("ok"))
        self.addCleanup(provider.close)
        for protocol in ("chat_completions", "responses"):
            with self.subTest(protocol=protocol), Albedo(provider, protocol=protocol) as app:
                session = app.session()
                with app.api(f"/sessions/{session}/commands", {"name": "/model", "args": {"model": "thinker", "effort": "high"}}) as response:
                    self.assertEqual(json.load(response)["result"]["effort"], "high")
                start = len(provider.requests)
                turn(app, session, "think hard")
                request = provider.requests[start]["request"]
                if protocol == "chat_completions":
                    self.assertEqual(request["reasoning_effort"], "high")
                else:
                    self.assertEqual(request["reasoning"]["effort"], "high")

    def test_a_vanished_provider_fails_the_turn_by_name_and_model_recovers_it(self):
        provider = Provider(by_prompt({}))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            config = json.loads((app.home / "config.json").read_text())
            config["providers"]["spare"] = config["providers"].pop("fixture")
            config["active"] = "spare"
            (app.home / "config.json").write_text(json.dumps(config))
            turn(app, session, "are you there")
            errors = [e["text"] for e in app.events(session) if e.get("type") == "error"]
            self.assertTrue(errors and "fixture" in errors[-1], errors)
            app.api(f"/sessions/{session}/commands", {"name": "/model", "args": {"provider": "spare", "model": "fixture-model"}}).close()
            turn(app, session, "and now")
            self.assertEqual([e["text"] for e in app.events(session) if e.get("type") == "message"], ["done"])

    def test_an_unusable_config_is_named_with_its_fault(self):
        provider = Provider(lambda request: text("ok"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            for config, words in (
                ({"active": "x", "providers": {"x": {"baseUrl": provider.url, "model": "m", "protocol": "carrier-pigeon"}}}, "protocol"),
                ({"active": "x", "providers": {"x": {"baseUrl": "relative/v1", "model": "m", "protocol": "responses"}}}, "baseUrl"),
            ):
                with self.subTest(words=words):
                    (app.home / "config.json").write_text(json.dumps(config))
                    code, failure = http_error(self, lambda: app.api("/sessions", {"workspace": str(app.workspace)}))
                    self.assertGreaterEqual(code, 400)
                    self.assertLess(code, 500)
                    self.assertIn("config", failure["error"])
                    self.assertIn(words, failure["error"])
            self.assertTrue(read(app, "/health")["ok"])

    def test_login_writes_the_provider_and_reads_the_key_from_stdin(self):
        import subprocess
        from harness import binary

        with Albedo(providers={}) as app:
            env = app.env()
            result = subprocess.run(
                [str(binary()), "login", "--name", "team", "--base-url", "http://127.0.0.1:9/v1", "--model", "m1", "--protocol", "chat_completions"],
                input=SECRET + "\n", env=env, text=True, capture_output=True, timeout=30,
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertNotIn(SECRET, result.stdout + result.stderr)
            config = json.loads((app.home / "config.json").read_text())
            self.assertEqual(config["active"], "team")
            self.assertEqual(config["providers"]["team"], {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": SECRET, "model": "m1", "protocol": "chat_completions"})
            self.assertEqual(read(app, "/sessions"), [])
            created = json.loads(app.cli("new"))
            self.assertEqual((created["provider"], created["model"]), ("team", "m1"))
            app.cli("model", "m2")
            self.assertEqual(json.loads((app.home / "config.json").read_text())["providers"]["team"]["model"], "m2")


if __name__ == "__main__":
    unittest.main()


class FlakyProvider(LocalServer):
    """A model server that misbehaves as told, then answers like a real one.

    ``plan`` is a list of actions for successive requests: "silent" sends
    the stream's headers and then nothing, "busy" answers 503 with
    Retry-After: 0, "ok" streams a Chat Completions answer."""

    def __init__(self, plan):
        self.plan = list(plan)
        self.count = 0
        owner = self

        class Handler(QuietHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                owner.count += 1
                action = owner.plan.pop(0) if owner.plan else "ok"
                if action == "busy":
                    self.reply(503, b'{"error": {"message": "overloaded"}}', content_type=None, headers={"Retry-After": "0"})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                if action == "silent":
                    self.wfile.flush()
                    threading.Event().wait(5)
                    return
                chunk = {"choices": [{"index": 0, "delta": {"content": "recovered"}, "finish_reason": "stop"}]}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n")

        super().__init__(Handler)


class ProviderFailureTest(unittest.TestCase):
    def app(self, flaky):
        providers = {"flaky": {"baseUrl": flaky.url + "/v1", "apiKey": "k", "model": "m", "protocol": "chat_completions"}}
        app = Albedo(providers=providers)
        app.__enter__()
        self.addCleanup(app.__exit__, None, None, None)
        (app.home / "config.json").write_text(json.dumps({"active": "flaky", "providers": providers}))
        return app

    def test_a_silent_stream_fails_the_turn_after_the_configured_time(self):
        import os
        flaky = FlakyProvider(["silent"])
        self.addCleanup(flaky.close)
        os.environ["ALBEDO_PROVIDER_IDLE_SECONDS"] = "1"
        try:
            app = self.app(flaky)
        finally:
            del os.environ["ALBEDO_PROVIDER_IDLE_SECONDS"]
        session = app.session()
        app.prompt(session, "say something").close()
        app.idle(session, timeout=20)
        errors = [e["text"] for e in app.events(session) if e.get("type") == "error"]
        self.assertEqual(len(errors), 1)
        self.assertIn("sent nothing", errors[0])
        turn(app, session, "try again")
        self.assertIn("recovered", [e.get("text") for e in app.events(session) if e.get("type") == "message"])

    def test_an_overloaded_provider_is_retried(self):
        flaky = FlakyProvider(["busy", "busy"])
        self.addCleanup(flaky.close)
        app = self.app(flaky)
        session = app.session()
        turn(app, session, "hello")
        events = app.events(session)
        self.assertEqual([e["text"] for e in events if e.get("type") == "message"], ["recovered"])
        self.assertFalse([e for e in events if e.get("type") == "error"])
        self.assertEqual(flaky.count, 3)
