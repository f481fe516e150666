"""Acceptance tests for the daemon's life: ending with its parent process
(``ALBEDO_PARENT_PID``) or on SIGTERM, a second ``albedo daemon`` on a home
that is already served, a stale ``daemon.json`` naming a live process that
is no daemon, a fixed port (``ALBEDO_PORT``), a broken
``extensions.json``, every command's ``--help``, and the vent ledger naming
the session that filed a vent."""

import json
import os
from pathlib import Path
import re
import signal
import socket
import subprocess
import unittest
import urllib.request

from harness import REPO, Albedo, Provider, alive, binary, exclusive, python, turn, wait_until
from scripts import by_prompt

DEADLINE = 30
"""Seconds a wait for something that should happen at once may take."""

EXIT_DEADLINE = 10
"""Seconds a daemon may take to exit once it has been told to."""

COMMANDS = ("sessions", "new", "daemon", "login", "model", "run", "attach", "console", "vents", "store")
"""Every command with options of its own."""


def read_json(path: Path):
    """The JSON document at ``path``, or None when it is missing or partial."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def health(connection: dict) -> dict:
    """GET /health on the daemon ``connection`` names."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{connection['port']}/health",
        headers={"Authorization": f"Bearer {connection['token']}"},
    )
    with urllib.request.urlopen(request, timeout=DEADLINE) as response:
        return json.load(response)


def free_port() -> int:
    """A port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_of(home: Path) -> str:
    """The daemon.log of ``home``, or a note that there is none."""
    try:
        return (home / "daemon.log").read_text(errors="replace")
    except OSError:
        return "(no daemon.log)"


def reads_extensions_file() -> bool:
    """Whether the daemon's sources read extensions.json (and so may warn
    about a broken one)."""
    for folder in ("frontends/daemon", "frontends/embedded"):
        for source in (REPO / folder).glob("*.go"):
            if source.name.endswith("_test.go"):
                continue
            text = source.read_text(errors="replace")
            if any(mark in text for mark in ("ReadExtensions", "ExtensionsFile", "extensions.json")):
                return True
    return False


class OtherHome:
    """A second ALBEDO_HOME beside a fixture's, with the fixture's
    config.json and any extra environment; the daemon it gets is stopped on
    close."""

    def __init__(self, app: Albedo, name: str, **environment: str):
        self.path = app.root / name
        self.path.mkdir(mode=0o700)
        (self.path / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}}))
        (self.path / "config.json").write_text((app.home / "config.json").read_text())
        self.env = app.env()
        self.env["ALBEDO_HOME"] = str(self.path)
        self.env.update(environment)
        self.workspace = app.workspace
        self.pids: set[int] = set()

    def cli(self, *args) -> subprocess.CompletedProcess:
        """Runs ``albedo ARGS`` with this home; returns the finished process."""
        return subprocess.run(
            [str(binary()), *map(str, args)],
            cwd=self.workspace,
            env=self.env,
            input="",
            capture_output=True,
            text=True,
            timeout=60,
        )

    def connection(self) -> dict:
        """Waits for daemon.json to name a live daemon and returns it."""
        found = {}

        def ready():
            value = read_json(self.path / "daemon.json")
            if isinstance(value, dict) and alive(value.get("pid")):
                found.update(value)
                return True
            return False

        if not wait_until(ready, DEADLINE):
            raise AssertionError(f"daemon.json never named a live daemon\n--- daemon.log ---\n{log_of(self.path)}")
        self.pids.add(found["pid"])
        return found

    def close(self) -> None:
        """Stops the daemons this home had: SIGTERM, then SIGKILL."""
        for pid in self.pids:
            if not alive(pid):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            if not wait_until(lambda: not alive(pid), EXIT_DEADLINE):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


@exclusive
class DaemonLifecycle(unittest.TestCase):
    def started(self, home: OtherHome) -> dict:
        """Starts the home's daemon through ``albedo sessions``."""
        result = home.cli("sessions")
        self.assertEqual(
            result.returncode, 0,
            f"albedo sessions failed: {result.stderr}\n--- daemon.log ---\n{log_of(home.path)}",
        )
        return home.connection()

    def test_daemon_exits_when_its_parent_process_ends(self):
        with Albedo() as app:
            parent = subprocess.Popen(["sleep", "30"])
            home = OtherHome(app, "orphan-home", ALBEDO_PARENT_PID=str(parent.pid))
            try:
                connection = self.started(home)
                self.assertTrue(health(connection)["ok"])
                self.assertTrue(alive(connection["pid"]), "the daemon ended while its parent lived")

                parent.kill()
                parent.wait()
                self.assertTrue(
                    wait_until(lambda: not alive(connection["pid"]), EXIT_DEADLINE),
                    f"daemon {connection['pid']} outlived its parent {parent.pid}\n"
                    f"--- daemon.log ---\n{log_of(home.path)}",
                )
                self.assertFalse((home.path / "daemon.json").exists(), "daemon.json outlived the daemon")
            finally:
                if parent.poll() is None:
                    parent.kill()
                    parent.wait()
                home.close()

    def test_sigterm_stops_the_daemon_and_the_next_command_starts_another(self):
        provider = Provider(by_prompt({}, answer="remembered"))
        try:
            with Albedo(provider) as app:
                session = app.session()
                turn(app, session, "keep this")
                old = app.connection["pid"]

                os.kill(old, signal.SIGTERM)
                self.assertTrue(
                    wait_until(lambda: not alive(old), EXIT_DEADLINE),
                    f"daemon {old} ignored SIGTERM\n--- daemon.log ---\n{log_of(app.home)}",
                )
                self.assertFalse((app.home / "daemon.json").exists(), "daemon.json outlived the daemon")

                listed = json.loads(app.cli("sessions", "--json"))
                found = {}

                def fresh():
                    value = read_json(app.home / "daemon.json")
                    if isinstance(value, dict) and value.get("pid") != old and alive(value.get("pid")):
                        found.update(value)
                        return True
                    return False

                self.assertTrue(wait_until(fresh, DEADLINE), "albedo sessions started no new daemon")
                app.connection = found
                self.assertIn(session, [s["id"] for s in listed])
                self.assertEqual(next(s for s in listed if s["id"] == session)["title"], "keep this")
                answers = [e["text"] for e in app.events(session) if e.get("type") == "message"]
                self.assertEqual(answers, ["remembered"])
        finally:
            provider.close()

    def test_second_daemon_on_a_served_home_says_so_and_leaves_the_first_serving(self):
        with Albedo() as app:
            first = dict(app.connection)
            for args, status in ((["daemon"], 1), (["daemon", "--detached"], 0)):
                with self.subTest(args=args):
                    result = subprocess.run(
                        [str(binary()), *args],
                        cwd=app.workspace,
                        env=app.env(),
                        input="",
                        capture_output=True,
                        text=True,
                        timeout=60,
                    )
                    self.assertEqual(result.returncode, status, f"second daemon: {result.stderr}\n--- daemon.log ---\n{log_of(app.home)}")
                    if status:
                        self.assertEqual(result.stderr.strip(), f"albedo daemon: another daemon (pid {first['pid']}) already serves ALBEDO_HOME")
                    else:
                        self.assertEqual(result.stderr, "", "a detached start hands off quietly")
                    self.assertEqual(read_json(app.home / "daemon.json"), first)
                    self.assertTrue(alive(first["pid"]))
                    with app.api("/health") as response:
                        self.assertTrue(json.load(response)["ok"])

    def test_daemon_json_naming_a_live_process_that_serves_nothing_is_replaced(self):
        provider = Provider(by_prompt({}, answer="unused"))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            home = OtherHome(app, "stale-home")
            stranger = subprocess.Popen(["sleep", "300"])
            try:
                stale = {"pid": stranger.pid, "port": free_port(), "token": "0" * 64}
                (home.path / "daemon.json").write_text(json.dumps(stale))
                made = home.cli("new", str(home.workspace))
                self.assertEqual(made.returncode, 0, f"albedo new failed: {made.stderr}\n--- daemon.log ---\n{log_of(home.path)}")
                session = json.loads(made.stdout)["session"]
                connection = home.connection()
                self.assertNotEqual(connection["pid"], stranger.pid)
                self.assertTrue(health(connection)["ok"])
                listed = home.cli("sessions", "--json")
                self.assertEqual([s["id"] for s in json.loads(listed.stdout)], [session], "the request that found nothing listening must be made once, on the new daemon")
                self.assertIsNone(stranger.poll(), "albedo must leave a process it did not start alone")
            finally:
                stranger.kill()
                stranger.wait()
                home.close()

    def test_albedo_port_fixes_the_port(self):
        with Albedo() as app:
            port = free_port()
            home = OtherHome(app, "port-home", ALBEDO_PORT=str(port))
            try:
                connection = self.started(home)
                self.assertEqual(connection["port"], port)
                answer = health(connection)
                self.assertTrue(answer["ok"])
                self.assertEqual(answer["version"], 2)
            finally:
                home.close()

    def test_broken_extensions_json_does_not_stop_the_daemon(self):
        def prepare(app):
            (app.home / "extensions.json").write_text('{"models": {"refreshHours": ')

        with Albedo(prepare=prepare) as app:
            with app.api("/health") as response:
                self.assertTrue(json.load(response)["ok"])
            self.assertIsInstance(json.loads(app.cli("sessions", "--json")), list)
            if reads_extensions_file():
                self.assertIn("extensions.json", log_of(app.home))


class Help(unittest.TestCase):
    def test_every_command_explains_itself(self):
        with Albedo() as app:
            home = OtherHome(app, "help-home")
            try:
                for command in COMMANDS:
                    with self.subTest(command=command):
                        result = home.cli(command, "--help")
                        self.assertEqual(result.returncode, 0, f"albedo {command} --help: {result.stderr}")
                        self.assertRegex(result.stdout, rf"(?i)usage:.*\balbedo {re.escape(command)}\b")
                self.assertFalse((home.path / "daemon.json").exists(), "--help started a daemon")
            finally:
                home.close()


class VentSessionName(unittest.TestCase):
    def test_vent_shows_the_filing_sessions_current_name(self):
        provider = Provider(by_prompt({"complain": python("await vent('bug', 'x')")}))
        try:
            with Albedo(provider) as app:
                session = app.session()
                turn(app, session, "complain about it")

                route = f"/sessions/{session}?view=configuration"
                with app.api(route) as response:
                    tag = response.headers["ETag"]
                self.assertTrue(tag)
                with app.api(route, {"name": "grumpy"}, method="PATCH", headers={"If-Match": tag}) as response:
                    self.assertEqual(json.load(response)["name"], "grumpy")

                with app.api("/extensions/paperclips/items") as response:
                    items = [item["value"] for item in json.load(response)["items"]]
                mine = [v for v in items if v.get("session_id") == session]
                self.assertEqual(len(mine), 1, items)
                self.assertEqual(mine[0]["message"], "x")
                self.assertEqual(mine[0].get("session_name"), "grumpy")
                with app.api(f"/extensions/paperclips/items/{mine[0]['id']}") as response:
                    self.assertEqual(json.load(response)["value"].get("session_name"), "grumpy")
        finally:
            provider.close()


if __name__ == "__main__":
    unittest.main()
