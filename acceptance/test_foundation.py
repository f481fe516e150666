"""Acceptance tests for albedo's foundation: the CLI starting and reusing a
private daemon, its connection file, authentication, error bodies, session
creation and listing, a broken config.json, and recovery from kill -9."""

import http.client
import json
import os
import re
import shutil
import stat
import unittest

from harness import Albedo, Provider, start_albedo, text

POSITION = re.compile(
    r"(line|column|col|offset|position|byte|char)\D{0,3}\d+|config\.json:\d+", re.I
)
"""A line/column or offset in a config error message."""


def raw(app, method, path, body=None, headers=None):
    """A request with only the given headers (no implicit token).

    Returns ``(status, parsed JSON or None, text)``.
    """
    connection = http.client.HTTPConnection("127.0.0.1", app.connection["port"], timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read().decode(errors="replace")
    finally:
        connection.close()
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    return response.status, value, data


def authorised(app, extra=None):
    """The bearer header for ``app``'s daemon plus ``extra``."""
    return {"Authorization": f"Bearer {app.connection['token']}", **(extra or {})}


def listing(app):
    """``GET /sessions`` as parsed JSON."""
    with app.api("/sessions") as response:
        return json.load(response)


def answer(provider_request):
    """The fake model: always a short text answer."""
    return text("ok")


class ErrorShape:
    """Mixin: every error the daemon returns is a JSON object with a message
    (``error``) and a machine-readable ``code``."""

    def assertError(self, status, value, text_, expected):
        self.assertEqual(status, expected, text_)
        self.assertIsInstance(value, dict, f"error body is not a JSON object: {text_!r}")
        self.assertIsInstance(value.get("error"), str, value)
        self.assertTrue(value["error"].strip(), value)
        self.assertIsInstance(value.get("code"), str, value)
        self.assertTrue(value["code"].strip(), value)


class StartupTest(unittest.TestCase):
    """`albedo sessions` brings up one daemon and tells clients how to reach it."""

    def setUp(self):
        self.provider = Provider(answer)
        self.addCleanup(self.provider.close)

    def test_sessions_starts_a_private_daemon_in_a_fresh_home(self):
        # The home does not exist yet: no config.json, no extensions.json.
        with Albedo(self.provider, prepare=lambda app: shutil.rmtree(app.home)) as app:
            self.assertEqual(stat.S_IMODE(app.home.stat().st_mode), 0o700)
            record = app.home / "daemon.json"
            self.assertEqual(stat.S_IMODE(record.stat().st_mode), 0o600)
            connection = json.loads(record.read_text())
            self.assertIsInstance(connection.get("pid"), int, connection)
            self.assertIsInstance(connection.get("port"), int, connection)
            self.assertIsInstance(connection.get("token"), str, connection)
            self.assertGreaterEqual(len(connection["token"]), 16, "token too guessable")
            os.kill(connection["pid"], 0)  # the named process is alive
            with app.api("/health") as response:
                health = json.load(response)
            self.assertIs(health["ok"], True)
            self.assertEqual(health["version"], 2)
            self.assertLessEqual(
                {"session_provider", "session_workspace"}, set(health["capabilities"])
            )

    def test_a_second_sessions_reuses_the_running_daemon(self):
        with Albedo(self.provider) as app:
            first = dict(app.connection)
            app.cli("sessions")
            again = json.loads((app.home / "daemon.json").read_text())
            self.assertEqual(again["pid"], first["pid"])
            self.assertEqual(again["port"], first["port"])
            with app.api("/health") as response:
                self.assertEqual(response.status, 200)

    def test_kill_9_then_sessions_starts_a_new_daemon_with_the_sessions_kept(self):
        with Albedo(self.provider) as app:
            session = app.session()
            before = app.connection["pid"]
            app.restart(crash=True)
            self.assertNotEqual(app.connection["pid"], before)
            os.kill(app.connection["pid"], 0)
            listed = {s["id"]: s for s in listing(app)}
            self.assertIn(session, listed)
            self.assertEqual(listed[session]["workspace"], str(app.workspace))
            cli_listed = json.loads(app.cli("sessions", "--json"))
            self.assertIn(session, [s.get("id") for s in cli_listed])

    def test_a_broken_config_still_serves_and_names_the_problem(self):
        def break_config(app):
            (app.home / "config.json").write_text(
                '{\n  "active": "fixture",\n  "providers": {\n    "fixture": {\n'
            )

        with Albedo(self.provider, prepare=break_config) as app:
            with app.api("/health") as response:
                self.assertIs(json.load(response)["ok"], True)
            self.assertIsInstance(listing(app), list)
            status, value, body = raw(
                app,
                "POST",
                "/sessions",
                json.dumps({"workspace": str(app.workspace)}),
                authorised(app, {"Content-Type": "application/json"}),
            )
            self.assertTrue(400 <= status < 500, (status, body))
            self.assertIsInstance(value, dict, body)
            self.assertIn("config.json", value.get("error", ""), value)
            self.assertRegex(value["error"], POSITION)

            # config.json is read when needed: fixing it needs no restart
            (app.home / "config.json").write_text(
                json.dumps(
                    {
                        "active": "fixture",
                        "providers": {
                            "fixture": {
                                "baseUrl": self.provider.url,
                                "apiKey": "fixture-key",
                                "model": "fixture-model",
                                "protocol": "chat_completions",
                            }
                        },
                    }
                )
            )
            with app.api("/sessions", {"workspace": str(app.workspace)}) as response:
                created = json.load(response)
            self.assertEqual((created["provider"], created["model"]), ("fixture", "fixture-model"))


class ApiBoundaryTest(ErrorShape, unittest.TestCase):
    """The HTTP API only answers its own clients and fails in JSON."""

    @classmethod
    def setUpClass(cls):
        cls.provider, cls.app = start_albedo(cls.addClassCleanup, answer)

    def test_health_needs_the_right_token(self):
        self.assertError(*raw(self.app, "GET", "/health"), 401)
        wrong = {"Authorization": "Bearer " + "0" * len(self.app.connection["token"])}
        self.assertError(*raw(self.app, "GET", "/health", headers=wrong), 401)
        status, value, body = raw(self.app, "GET", "/health", headers=authorised(self.app))
        self.assertEqual(status, 200, body)
        self.assertIs(value["ok"], True)

    def test_a_foreign_origin_is_refused_even_with_the_token(self):
        headers = authorised(self.app, {"Origin": "http://evil.example"})
        self.assertError(*raw(self.app, "GET", "/health", headers=headers), 403)
        self.assertError(*raw(self.app, "GET", "/sessions", headers=headers), 403)

    def test_an_unknown_session_is_not_found(self):
        self.assertError(
            *raw(self.app, "GET", "/sessions/nope/status", headers=authorised(self.app)), 404
        )

    def test_invalid_session_requests_are_rejected_and_change_nothing(self):
        app = self.app
        a_file = app.root / "not-a-directory"
        a_file.write_text("plain file\n")
        cases = {
            "malformed JSON": '{"workspace": ',
            "relative workspace": json.dumps({"workspace": "workspace"}),
            "missing workspace": json.dumps({"workspace": str(app.root / "missing")}),
            "file as workspace": json.dumps({"workspace": str(a_file)}),
        }
        before = listing(app)
        for name, body in cases.items():
            with self.subTest(name):
                headers = authorised(app, {"Content-Type": "application/json"})
                self.assertError(*raw(app, "POST", "/sessions", body, headers), 400)
                self.assertEqual(listing(app), before)


class CliTest(unittest.TestCase):
    """The command line creates and lists sessions and explains itself."""

    @classmethod
    def setUpClass(cls):
        cls.provider, cls.app = start_albedo(cls.addClassCleanup, answer)

    def test_new_prints_the_session_and_every_listing_shows_it(self):
        app = self.app
        workspace = app.root / "cli-workspace"
        workspace.mkdir()
        created = json.loads(app.cli("new", str(workspace)))
        self.assertIsInstance(created, dict)
        session = created["session"]
        self.assertIsInstance(session, str)
        self.assertTrue(session)

        info = next(s for s in listing(app) if s["id"] == session)
        self.assertEqual(info["workspace"], str(workspace))
        self.assertEqual(info["title"], "new session")
        self.assertEqual((info["provider"], info["model"]), ("fixture", "fixture-model"))

        listed = json.loads(app.cli("sessions", "--json"))
        self.assertIsInstance(listed, list)
        self.assertIn(session, [s.get("id") for s in listed])
        self.assertIn(session, app.cli("sessions"))

    def test_help_names_the_commands(self):
        output = self.app.cli("--help")  # exit 0, usage on stdout
        for command in ("sessions", "new", "daemon"):
            self.assertIn(command, output)


if __name__ == "__main__":
    unittest.main()
