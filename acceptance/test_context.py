"""The model's context: the request ledger, usage, context windows from
config.json or the model catalog, and project instructions."""

from __future__ import annotations

import json
import os
import threading
import time
import unittest
import urllib.error

from harness import Albedo, LocalServer, Provider, QuietHandler, failure, python, read, text, turn, wait_until

KEY = "sk-ledger-key-never-in-a-row-77"


def instructions_of(request: dict) -> str:
    """The system instructions a model request carried, in either protocol."""
    if "instructions" in request:
        return request["instructions"]
    first = request["messages"][0]
    return first["content"] if first.get("role") == "system" else ""


class Script:
    """Answers model requests from a list, then with text "done"."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.lock = threading.Lock()

    def __call__(self, request):
        with self.lock:
            return self.replies.pop(0) if self.replies else text("done")


class CatalogServer(LocalServer):
    """A local stand-in for models.url that counts its requests."""

    def __init__(self, status=200, body=""):
        self.hits = 0
        owner = self

        class Handler(QuietHandler):
            def do_GET(self):
                owner.hits += 1
                self.reply(owner.status, owner.body.encode())

        self.status, self.body = status, body
        super().__init__(Handler)
        self.url += "/api.json"


def catalog(api: str, context: int, model="fixture-model", provider="local") -> dict:
    return {provider: {"id": provider, "api": api, "models": {model: {"id": model, "limit": {"context": context, "output": 4096}, "modalities": {"input": ["text"]}}}}}


class LedgerTest(unittest.TestCase):
    def test_every_attempt_is_a_row_in_order_for_each_protocol(self):
        for protocol in ("responses", "chat_completions"):
            with self.subTest(protocol=protocol):
                provider = Provider(Script(python("1 + 1"), failure(503, "overloaded " + KEY), python("2 + 2"), text("all done")))
                self.addCleanup(provider.close)
                providers = {"fixture": {"baseUrl": provider.url, "apiKey": KEY, "model": "fixture-model", "protocol": protocol}}
                with Albedo(providers=providers) as app:
                    session = app.session()
                    turn(app, session, "two tool rounds please")
                    page = read(app, f"/sessions/{session}/requests")
                    rows = page["rows"]
                    self.assertIsNone(page["next"])
                    self.assertEqual([(r["outcome"], r["status"]) for r in rows], [("ok", 200), ("error", 503), ("ok", 200), ("ok", 200)])
                    self.assertEqual(len(provider.requests), 4)
                    for row, sent in zip(rows, provider.requests):
                        body = len(json.dumps(sent["request"]).encode())
                        self.assertGreater(row["bytes"], 0)
                        self.assertAlmostEqual(row["bytes"], body, delta=body * 0.2)
                    for row in (rows[0], rows[2], rows[3]):
                        # The fixture reports its input as body bytes / 4 and 8 out,
                        # and neither cached nor reasoning tokens.
                        self.assertEqual(row["input_tokens"], max(1, row["bytes"] // 4))
                        self.assertEqual((row["output_tokens"], row["cached_input_tokens"], row["reasoning_tokens"]), (8, None, None))
                        self.assertIsNone(row["error"])
                    self.assertEqual([rows[1][k] for k in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")], [None] * 4)
                    self.assertIn("overloaded", rows[1]["error"])
                    self.assertEqual([r["id"] for r in rows], sorted(r["id"] for r in rows))
                    self.assertTrue(all(r["kind"] == "turn" and r["provider"] == "fixture" and r["model"] == "fixture-model" and r["protocol"] == protocol for r in rows))
                    self.assertEqual(rows[1]["items"], rows[2]["items"])
                    self.assertLess(rows[0]["items"], rows[2]["items"])
                    self.assertNotIn(KEY, json.dumps(page))

                    usage = read(app, f"/sessions/{session}?tail=0")["session"]["usage"]
                    ok = [rows[0], rows[2], rows[3]]
                    self.assertEqual(usage, {"input_tokens": sum(r["input_tokens"] for r in ok), "cached_input_tokens": 0,
                                             "output_tokens": 24, "reasoning_tokens": 0, "requests": 3})
                    listed = {s["id"]: s for s in json.loads(app.cli("sessions", "--json"))}
                    self.assertEqual(listed[session]["usage"], usage)

                    first, second = read(app, f"/sessions/{session}/requests?limit=2"), None
                    self.assertEqual([r["id"] for r in first["rows"]], [r["id"] for r in rows[:2]])
                    second = read(app, f"/sessions/{session}/requests?limit=2&after={first['next']}")
                    self.assertEqual([r["id"] for r in second["rows"]], [r["id"] for r in rows[2:]])
                    self.assertIsNone(second["next"])
                    for bad in ("limit=201", "limit=-1", "after=x"):
                        with self.assertRaises(urllib.error.HTTPError) as caught:
                            app.api(f"/sessions/{session}/requests?{bad}").close()
                        self.assertEqual(caught.exception.code, 400, bad)
                    read(app, f"/sessions/{session}/requests?limit=200")

    def test_run_json_ends_with_the_turns_usage(self):
        provider = Provider(Script(python("1"), text("answer")))
        self.addCleanup(provider.close)
        with Albedo(provider) as app:
            session = app.session()
            turn(app, session, "warm up")
            lines = [json.loads(line) for line in app.cli("run", "--session", session, "--json", "second").splitlines()]
            last = lines[-1]
            self.assertEqual(last["type"], "turn")
            rows = read(app, f"/sessions/{session}/requests")["rows"][-1:]
            self.assertEqual(last["usage"], {"input_tokens": rows[0]["input_tokens"], "cached_input_tokens": 0,
                                             "output_tokens": 8, "reasoning_tokens": 0, "requests": 1})
            self.assertTrue(all("usage" not in line or line["type"] == "status" for line in lines[:-1]))


class ContextWindowTest(unittest.TestCase):
    def setUp(self):
        self.provider = Provider(Script())
        self.addCleanup(self.provider.close)

    def albedo(self, *, models=None, extensions=None, window=None):
        def prepare(app):
            if models is not None:
                (app.home / "models.json").write_text(models if isinstance(models, str) else json.dumps(models))
            if extensions is not None:
                (app.home / "extensions.json").write_text(json.dumps(extensions))
            if window is not None:
                config = json.loads((app.home / "config.json").read_text())
                config["providers"]["fixture"]["contextWindow"] = window
                (app.home / "config.json").write_text(json.dumps(config))
        return Albedo(self.provider, prepare=prepare)

    def context_glance(self, app, session):
        glances = read(app, f"/sessions/{session}?tail=0")["glances"]
        return [g for g in glances if g["extension"] == "context"]

    def test_the_catalog_gives_the_window(self):
        with self.albedo(models=catalog(self.provider.url + "/v1", 136000)) as app:
            session = app.session()
            context = read(app, f"/sessions/{session}/context")
            self.assertEqual((context["window"], context["window_source"], context["used"], context["used_source"], context["percent"]),
                             (136000, "catalog", None, None, None))
            self.assertEqual(context["problems"], [])
            turn(app, session, "hello")
            context = read(app, f"/sessions/{session}/context")
            row = read(app, f"/sessions/{session}/requests")["rows"][-1]
            self.assertEqual(context["used_source"], "provider")
            self.assertGreaterEqual(context["used"], row["input_tokens"])
            self.assertAlmostEqual(context["percent"], context["used"] * 100 / 136000, delta=0.06)
            self.assertEqual(self.context_glance(app, session), [])

    def test_a_collision_leaves_the_window_unknown(self):
        models = {**catalog("https://one.example/v1", 8192, model="vendor/fixture-model", provider="one"),
                  **catalog("https://two.example/v1", 32768, provider="two")}
        with self.albedo(models=models) as app:
            session = app.session()
            context = read(app, f"/sessions/{session}/context")
            self.assertIsNone(context["window"])
            self.assertIsNone(context["window_source"])
            self.assertEqual(len(context["problems"]), 1)
            self.assertIn("fixture-model", context["problems"][0])
            self.assertEqual(self.context_glance(app, session)[0]["problems"], context["problems"])

    def test_the_host_and_port_settle_a_collision(self):
        models = {**catalog("https://one.example/v1", 8192, provider="one"), **catalog(self.provider.url + "/v1", 65536, provider="here")}
        with self.albedo(models=models) as app:
            context = read(app, f"/sessions/{app.session()}/context")
            self.assertEqual((context["window"], context["problems"]), (65536, []))

    def test_contextWindow_in_config_wins(self):
        with self.albedo(models=catalog(self.provider.url + "/v1", 136000), window=200000) as app:
            context = read(app, f"/sessions/{app.session()}/context")
            self.assertEqual((context["window"], context["window_source"]), (200000, "config"))

    def test_bad_input_is_reported_and_the_provider_still_works(self):
        for window, models in ((-5, None), ("128k", None), (1.5, None), (None, "{not json")):
            with self.subTest(window=window, models=models):
                with self.albedo(window=window, models=models) as app:
                    session = app.session()
                    turn(app, session, "still works?")
                    self.assertTrue(any(e["type"] == "message" and e["text"] == "done" for e in app.events(session)))
                    context = read(app, f"/sessions/{session}/context")
                    self.assertIsNone(context["window"])
                    self.assertEqual(len(context["problems"]), 1, context)
                    self.assertIn("contextWindow" if models is None else "models.json", context["problems"][0])
                    self.assertEqual(self.context_glance(app, session)[0]["problems"], context["problems"])

    def test_refresh_hours_zero_never_fetches(self):
        server = CatalogServer(body=json.dumps(catalog(self.provider.url + "/v1", 1000)))
        self.addCleanup(server.close)
        with self.albedo(extensions={"models": {"refreshHours": 0, "url": server.url}}) as app:
            session = app.session()
            turn(app, session, "hello")
            app.restart()
            read(app, f"/sessions/{session}/context")
            self.assertEqual(server.hits, 0)
            self.assertFalse((app.home / "models.json").exists())

    def test_a_missing_catalog_is_fetched_from_models_url_at_start(self):
        server = CatalogServer(body=json.dumps(catalog(self.provider.url + "/v1", 77000)))
        self.addCleanup(server.close)
        with self.albedo(extensions={"models": {"refreshHours": 24, "url": server.url}}) as app:
            self.assertTrue(wait_until(lambda: (app.home / "models.json").exists()))
            self.assertEqual(server.hits, 1)
            context = read(app, f"/sessions/{app.session()}/context")
            self.assertEqual((context["window"], context["window_source"]), (77000, "catalog"))

    def test_a_failed_fetch_keeps_the_old_copy(self):
        old = json.dumps(catalog(self.provider.url + "/v1", 50000))
        for status, body in ((500, "oops"), (200, "<html>not a catalog</html>")):
            with self.subTest(status=status):
                server = CatalogServer(status=status, body=body)
                self.addCleanup(server.close)

                def stale(app, old=old):
                    path = app.home / "models.json"
                    path.write_text(old)
                    past = time.time() - 48 * 3600
                    os.utime(path, (past, past))

                with Albedo(self.provider, prepare=lambda app: (stale(app), (app.home / "extensions.json").write_text(
                        json.dumps({"models": {"refreshHours": 24, "url": server.url}})))) as app:
                    self.assertTrue(wait_until(lambda: server.hits >= 1))
                    self.assertEqual((app.home / "models.json").read_text(), old)
                    context = read(app, f"/sessions/{app.session()}/context")
                    self.assertEqual(context["window"], 50000)
                    self.assertIn("daemon.log", os.listdir(app.home))


class InstructionsTest(unittest.TestCase):
    def setUp(self):
        self.script = Script()
        self.provider = Provider(self.script)
        self.addCleanup(self.provider.close)

    def repo(self, app, files: dict):
        """Makes the workspace's parent a repository holding files; returns
        the nested workspace the session works in."""
        root = app.root / "repo"
        (root / ".git").mkdir(parents=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        workspace = root / "pkg" / "tool"
        workspace.mkdir(parents=True, exist_ok=True)
        return root, workspace

    def test_files_from_root_to_workspace_with_precedence_and_fallback(self):
        for protocol in ("responses", "chat_completions"):
            with self.subTest(protocol=protocol):
                with Albedo(self.provider, protocol=protocol) as app:
                    (app.home / "AGENTS.md").write_text("user rules")
                    root, workspace = self.repo(app, {
                        "AGENTS.md": "root rules", "CLAUDE.md": "not this one",
                        "pkg/CLAUDE.md": "pkg rules",
                        "pkg/tool/AGENTS.override.md": "override rules", "pkg/tool/AGENTS.md": "not this either",
                        "other/AGENTS.md": "never",
                    })
                    start = len(self.provider.requests)
                    session = app.session(workspace)
                    turn(app, session, "hello")
                    sent = instructions_of(self.provider.requests[start]["request"])
                    wrapped = [f'<project-instructions source="{src}">\n{body}\n</project-instructions>' for src, body in (
                        ("ALBEDO_HOME/AGENTS.md", "user rules"), ("AGENTS.md", "root rules"),
                        ("pkg/CLAUDE.md", "pkg rules"), ("pkg/tool/AGENTS.override.md", "override rules"))]
                    positions = [sent.find(w) for w in wrapped]
                    self.assertTrue(all(p > 0 for p in positions), sent)
                    self.assertEqual(positions, sorted(positions))
                    for absent in ("not this one", "not this either", "never"):
                        self.assertNotIn(absent, sent)
                    self.assertTrue(sent.startswith("You are a coding agent"))
                    self.assertIn(f"Workspace: {workspace}", sent)
                    context = read(app, f"/sessions/{session}/context")
                    self.assertEqual([(i["path"], i["bytes"], i["truncated"]) for i in context["instructions"]],
                                     [("ALBEDO_HOME/AGENTS.md", 10, False), ("AGENTS.md", 10, False),
                                      ("pkg/CLAUDE.md", 9, False), ("pkg/tool/AGENTS.override.md", 14, False)])
                    history = json.dumps(read(app, f"/sessions/{session}/history"))
                    self.assertNotIn("project-instructions", history)
                    self.assertNotIn("root rules", history)

    def test_oversized_and_non_utf8_files_are_skipped_with_a_warning(self):
        with Albedo(self.provider) as app:
            root, workspace = self.repo(app, {
                "AGENTS.override.md": "x" * (1024 * 1024 + 1), "AGENTS.md": "root fallback",
                "pkg/AGENTS.md": b"caf\xe9 au lait", "pkg/CLAUDE.md": "pkg fallback",
            })
            start = len(self.provider.requests)
            session = app.session(workspace)
            turn(app, session, "hello")
            sent = instructions_of(self.provider.requests[start]["request"])
            self.assertIn("root fallback", sent)
            self.assertIn("pkg fallback", sent)
            self.assertNotIn("xxxxxxxx", sent)
            self.assertNotIn("au lait", sent)
            glances = [g for g in read(app, f"/sessions/{session}?tail=0")["glances"] if g["extension"] == "instructions"]
            self.assertEqual(len(glances), 1)
            warnings = glances[0]["warnings"]
            self.assertEqual(len(warnings), 2, warnings)
            self.assertIn("AGENTS.override.md", warnings[0])
            self.assertIn("1 MiB", warnings[0])
            self.assertIn("pkg/AGENTS.md", warnings[1])
            self.assertIn("UTF-8", warnings[1])

    def test_32_KiB_in_all_then_a_marker(self):
        with Albedo(self.provider) as app:
            root, workspace = self.repo(app, {"AGENTS.md": "a" * 20000, "pkg/AGENTS.md": "b" * 20000 + "TAIL"})
            start = len(self.provider.requests)
            session = app.session(workspace)
            turn(app, session, "hello")
            sent = instructions_of(self.provider.requests[start]["request"])
            self.assertIn("a" * 20000, sent)
            self.assertIn("b" * (32768 - 20000), sent)
            self.assertNotIn("b" * (32768 - 20000 + 1), sent)
            self.assertNotIn("TAIL", sent)
            self.assertIn("[cut: the rest of pkg/AGENTS.md is left out", sent)
            context = read(app, f"/sessions/{session}/context")
            self.assertEqual([(i["path"], i["bytes"], i["truncated"]) for i in context["instructions"]],
                             [("AGENTS.md", 20000, False), ("pkg/AGENTS.md", 32768 - 20000, True)])

    def test_an_edit_applies_next_turn_with_one_note(self):
        with Albedo(self.provider) as app:
            # The file is in the workspace, where a sandboxed cell may write.
            root, workspace = self.repo(app, {"pkg/tool/AGENTS.md": "old rules"})
            edit = "open('AGENTS.md', 'w').write('new rules')"
            self.script.replies += [python(edit), text("edited"), text("second"), text("third")]
            session = app.session(workspace)
            start = len(self.provider.requests)
            turn(app, session, "first turn")
            turn(app, session, "second turn")
            turn(app, session, "third turn")
            sent = [instructions_of(r["request"]) for r in self.provider.requests[start:]]
            self.assertEqual(len(sent), 4)
            self.assertEqual(["old rules" in s for s in sent], [True, True, False, False])
            self.assertEqual(["new rules" in s for s in sent], [False, False, True, True])
            # The note rides on the user message of the turn after the edit,
            # as sent to the model, and on no other.
            requests = [r["request"] for r in self.provider.requests[start:]]
            last_user = [json.dumps([m for m in r.get("messages", r.get("input", [])) if m.get("role") == "user"][-1]) for r in requests]
            noted = ["Project instructions changed" in u and "AGENTS.md" in u for u in last_user]
            self.assertEqual(noted, [False, False, True, False])
            # Stored with its message, the note is sent again with the
            # transcript, but it was added once.
            self.assertEqual(json.dumps(requests[-1]).count("Project instructions changed"), 1)
            history = json.dumps(read(app, f"/sessions/{session}/history"))
            self.assertNotIn("project-instructions", history)
            self.assertNotIn("old rules", history)

    def test_a_sessions_first_and_second_requests_carry_the_same_instructions(self):
        # The daemon asks Python for its version as it starts, in the
        # background, and keeps it in python.json for the next daemon; a
        # session's first request then names the version its later ones do,
        # so that the provider's prompt cache holds from the second on.
        with Albedo(self.provider) as app:
            self.assertTrue(wait_until(lambda: (app.home / "python.json").exists(), 20),
                            "the daemon did not learn the Python version at start")
            start = len(self.provider.requests)
            session = app.session()
            turn(app, session, "hello")
            turn(app, session, "again")
            sent = [instructions_of(r["request"]) for r in self.provider.requests[start:]]
            self.assertEqual(len(sent), 2)
            self.assertRegex(sent[0], r"Python \(the python tool\): 3\.\d+\.\d+\n")
            self.assertEqual(sent[0], sent[1])
            learnt = json.loads((app.home / "python.json").read_text())
            self.assertEqual([v["version"] for v in learnt.values()], [sent[0].split("Python (the python tool): ")[1].split("\n")[0]])

    def test_instructions_can_be_turned_off(self):
        def prepare(app):
            (app.home / "extensions.json").write_text(json.dumps({"models": {"refreshHours": 0}, "instructions": {"enabled": False}}))
            (app.home / "AGENTS.md").write_text("user rules")
        with Albedo(self.provider, prepare=prepare) as app:
            (app.workspace / "AGENTS.md").write_text("workspace rules")
            start = len(self.provider.requests)
            session = app.session()
            turn(app, session, "hello")
            sent = instructions_of(self.provider.requests[start]["request"])
            self.assertNotIn("project-instructions", sent)
            self.assertNotIn("rules", sent)
            self.assertIn("<environment>", sent)
            self.assertEqual(read(app, f"/sessions/{session}/context")["instructions"], [])


if __name__ == "__main__":
    unittest.main()
