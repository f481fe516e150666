"""Long sessions stay light: stream resume, bounded buffers, paging, and
deleting, archiving and finding sessions."""

from __future__ import annotations

import http.client
import json
import sqlite3
import unittest
import urllib.error

from footprint import MIB, LongAnswerProvider, dead_reader, peak, reset_peak, served_until_idle
from harness import Albedo, Provider, exclusive, python, text


# --------------------------------------------------------------------------
# reading the event stream


class StreamReader:
    """One connection to a session's stream, read message by message."""

    def __init__(self, app, session, *, last_event_id=None, query=""):
        connection = app.connection
        self.http = http.client.HTTPConnection("127.0.0.1", connection["port"], timeout=60)
        headers = {"Authorization": f"Bearer {connection['token']}"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.http.request("GET", f"/sessions/{session}/stream{query}", headers=headers)
        self.response = self.http.getresponse()
        if self.response.status != 200:
            raise AssertionError(f"stream answered {self.response.status}: {self.response.read()!r}")

    def message(self):
        """The next message as (id or None, data object), skipping comments;
        None at the end of the stream."""
        ident, data = None, None
        while True:
            line = self.response.readline()
            if not line:
                return None
            line = line.rstrip(b"\n")
            if not line:
                if data is not None:
                    return ident, data
                continue
            if line.startswith(b"id: "):
                ident = int(line[4:])
            elif line.startswith(b"data: "):
                data = json.loads(line[6:])

    def close(self):
        self.http.close()


def durable(events):
    return [e["seq"] for e in events if e.get("seq")]


def history_seqs(app, session):
    return [item["seq"] for item in app.history(session)["items"]]


def etag(app, session):
    with app.api(f"/sessions/{session}?view=configuration") as response:
        json.load(response)
        return response.headers["ETag"]


def status_of(call):
    try:
        call().close()
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)
    return 200, None


class StreamResumeTest(unittest.TestCase):
    def test_last_event_id_over_100_reconnects_during_a_busy_turn(self):
        stop = {"now": False}

        def script(request):
            return text("done") if stop["now"] else python("print('step')")

        provider = Provider(script)
        try:
            with Albedo(provider) as app:
                session = app.session()
                app.prompt(session, "keep stepping").close()
                seen = []
                last = None
                for _ in range(100):
                    reader = StreamReader(app, session, last_event_id=last)
                    try:
                        # the snapshot, then one live message: the turn is
                        # busy, so one always comes
                        for _ in range(2):
                            message = reader.message()
                            self.assertIsNotNone(message, "the stream ended mid-turn")
                            ident, data = message
                            seen += durable(data["events"])
                            if ident is not None:
                                last = ident
                    finally:
                        reader.close()
                stop["now"] = True
                app.idle(session, timeout=60)
                reader = StreamReader(app, session, last_event_id=last)
                try:
                    ident, data = reader.message()
                    seen += durable(data["events"])
                finally:
                    reader.close()
                everything = history_seqs(app, session)
                self.assertGreater(len(everything), 20, "the turn did not keep going")
                self.assertEqual(seen, everything, "durable events missed, repeated or out of order")
                self.assertEqual(ident, everything[-1])
        finally:
            provider.close()

    def test_reconnect_after_a_restart_resumes(self):
        replies = iter([text("first answer"), text("second answer")])
        provider = Provider(lambda request: next(replies))
        try:
            with Albedo(provider) as app:
                session = app.session()
                app.prompt(session, "one").close()
                app.idle(session)
                reader = StreamReader(app, session)
                ident, data = reader.message()
                reader.close()
                self.assertEqual(durable(data["events"]), history_seqs(app, session))
                self.assertEqual(ident, history_seqs(app, session)[-1])
                app.restart()
                app.prompt(session, "two").close()
                app.idle(session)
                reader = StreamReader(app, session, last_event_id=ident)
                again, data = reader.message()
                reader.close()
                after = [s for s in history_seqs(app, session) if s > ident]
                self.assertEqual(durable(data["events"]), after)
                self.assertEqual(again, after[-1])
                self.assertIn("second answer", [e.get("text") for e in data["events"]])
        finally:
            provider.close()

    def test_a_tailed_snapshot_says_where_it_starts(self):
        provider = Provider(lambda request: text("answer"))
        try:
            with Albedo(provider) as app:
                session = app.session()
                app.prompt(session, "one").close()
                app.idle(session)
                seqs = history_seqs(app, session)
                cases = [
                    ("?tail=2", seqs[-2:], seqs[-2]),
                    (f"?tail={len(seqs)}", seqs, None),
                    ("?tail=1000", seqs, None),
                ]
                for query, want, before in cases:
                    with self.subTest(query=query):
                        reader = StreamReader(app, session, query=query)
                        _, data = reader.message()
                        reader.close()
                        self.assertEqual(durable(data["events"]), want)
                        self.assertIn("before", data)
                        self.assertEqual(data["before"], before)
                reader = StreamReader(app, session)
                _, data = reader.message()
                reader.close()
                self.assertNotIn("before", data, "an untailed snapshot is whole, as before")
        finally:
            provider.close()


# --------------------------------------------------------------------------
# an answer past the cap and a reader that never reads


@exclusive
class DeadReaderTest(unittest.TestCase):
    def test_an_answer_past_the_cap_with_a_dead_reader(self):
        self.dead_reader("chat_completions")

    def test_a_responses_answer_past_the_cap_with_a_dead_reader(self):
        self.dead_reader("responses")

    def dead_reader(self, protocol):
        provider = LongAnswerProvider(50 * MIB, protocol)
        try:
            with Albedo(provider, protocol=protocol) as app:
                session = app.session()
                other = app.session()
                app.prompt(other, "short").close()
                app.idle(other)
                # A reader that connects and then never reads.
                dead = dead_reader(app, session)
                # The peak from here on: VmHWM is reset to the current RSS.
                reset_peak(app)
                app.prompt(session, "a long answer please").close()
                self.assertGreater(served_until_idle(self, app, session, other), 0)
                # The answer ends at the 8 MiB cap on one reply item, and
                # what came before the cap is kept.
                self.assertLess(peak(app), 150, "peak RSS in MB while a 50 MiB answer streamed")
                items = app.history(session)["items"]
                answer = [i for i in items if i["kind"] == "assistant"][-1]
                self.assertLessEqual(len(answer["text"]), 8 * MIB)
                self.assertGreater(len(answer["text"]), 8 * MIB - 32 * 1024)
                self.assertIn("8 MiB cap", [i for i in items if i["kind"] == "error"][-1]["text"])
                # The dead reader finally reads: its stream ends with overflow.
                dead.settimeout(60)
                data = b""
                while True:
                    chunk = dead.recv(1 << 20)
                    if not chunk:
                        break
                    data += chunk
                    if b'{"type":"overflow"}' in data[-200:]:
                        break
                dead.close()
                messages = [m for m in data.split(b"\n\n") if b"data: " in m]
                last = messages[-1].split(b"data: ", 1)[1]
                last = last.split(b"\r\n")[0]
                self.assertEqual(json.loads(last), {"events": [{"type": "overflow"}]})
        finally:
            provider.close()


# --------------------------------------------------------------------------
# history paging


class HistoryPagingTest(unittest.TestCase):
    def test_pages_forwards_and_backwards(self):
        provider = Provider(lambda request: text("answer"))
        try:
            with Albedo(provider) as app:
                session = app.session()
                for n in range(4):
                    app.prompt(session, f"message {n}").close()
                    app.idle(session)
                everything = history_seqs(app, session)
                whole = app.history(session)
                self.assertEqual(whole["next"], None)
                self.assertEqual(whole["before"], everything[0])

                def page(query):
                    with app.api(f"/sessions/{session}/history?{query}") as response:
                        return json.load(response)

                forwards, after = [], 0
                while True:
                    got = page(f"after={after}&limit=5")
                    forwards += [item["seq"] for item in got["items"]]
                    if got["next"] is None:
                        break
                    after = got["next"]
                self.assertEqual(forwards, everything)
                backwards, before = [], everything[-1] + 1
                while True:
                    got = page(f"before={before}&limit=3")
                    seqs = [item["seq"] for item in got["items"]]
                    self.assertEqual(seqs, sorted(seqs), "a page is in ascending order")
                    if not seqs:
                        break
                    backwards = seqs + backwards
                    before = got["before"]
                self.assertEqual(backwards, everything)
                self.assertEqual(len(page("limit=100000")["items"]), min(500, len(everything)))
                code, body = status_of(lambda: app.api(f"/sessions/{session}/history?limit=x"))
                self.assertEqual(code, 400, body)
        finally:
            provider.close()


# --------------------------------------------------------------------------
# deleting, archiving, finding


def session_rows(database, session):
    """Every row of every table that names the session in a session column
    (vents keep theirs), found by walking the schema."""
    rows = {}
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")]
        for table in tables:
            for column in [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]:
                keyed = column == "session_id" or (table == "sessions" and column == "id")
                if keyed:
                    n = db.execute(f'SELECT count(*) FROM "{table}" WHERE "{column}" = ?', (session,)).fetchone()[0]
                    if n:
                        rows[f"{table}.{column}"] = n
    return rows


VENT = "v = await vent('bug', 'the build is slow', title='slow build')\nprint(v['id'])"


class DeleteTest(unittest.TestCase):
    def test_delete_removes_everything_of_the_session(self):
        replies = iter([python(VENT), text("filed"), text("forked answer")])
        provider = Provider(lambda request: next(replies))
        try:
            with Albedo(provider) as app:
                session = app.session()
                app.prompt(session, "file a vent").close()
                app.idle(session)
                vent_id = int(json.loads([e for e in app.events(session) if e["type"] == "tool"][0]["result"])["output"])
                with app.api(f"/sessions/{session}/fork", {"checkpoint": 1}) as response:
                    fork = json.load(response)["id"]
                database = app.home / "albedo.sqlite"
                self.assertTrue(session_rows(database, session))
                # Output a crash left spooled for the session goes with it.
                spooled = app.home / "spool" / session
                spooled.mkdir(parents=True, exist_ok=True)
                (spooled / "7.head").write_text("printed before a crash\n")
                reader = StreamReader(app, session)
                reader.message()
                with app.api(f"/sessions/{session}", method="DELETE") as response:
                    self.assertEqual(json.load(response), {"deleted": session})
                self.assertFalse(spooled.exists(), "the deleted session's spool folder")
                last = None
                while (message := reader.message()) is not None:
                    last = message[1]
                reader.close()
                self.assertEqual(last, {"events": [{"type": "deleted"}]})
                self.assertEqual(session_rows(database, session), {})
                for route in (f"/sessions/{session}", f"/sessions/{session}/history", f"/sessions/{session}/stream"):
                    self.assertEqual(status_of(lambda: app.api(route))[0], 404, route)
                code, body = status_of(lambda: app.api(f"/sessions/{session}", method="DELETE"))
                self.assertEqual((code, body["code"]), (404, "not_found"))
                with app.api("/sessions?archived=all") as response:
                    self.assertNotIn(session, [s["id"] for s in json.load(response)])
                # The vent keeps its session id; a reply says the session is gone.
                route = f"/extensions/paperclips/items/{vent_id}"
                with app.api(route) as response:
                    vent = json.load(response)["value"]
                    revision = response.headers["ETag"]
                self.assertEqual(vent["session_id"], session)
                with app.api(route, {"reply": "thanks"}, method="PATCH", headers={"If-Match": revision}) as response:
                    self.assertEqual(json.load(response)["notification"]["state"], "session_gone")
                # The fork keeps working, and a restart brings nothing back.
                app.restart()
                self.assertEqual(status_of(lambda: app.api(f"/sessions/{session}"))[0], 404)
                self.assertEqual(session_rows(database, session), {})
                app.prompt(fork, "go on").close()
                app.idle(fork)
                self.assertIn("forked answer", [e.get("text") for e in app.events(fork)])
        finally:
            provider.close()

    def test_a_running_session_is_busy(self):
        provider = Provider(lambda request: python("import time\ntime.sleep(30)"))
        try:
            with Albedo(provider) as app:
                session = app.session()
                app.prompt(session, "sleep").close()
                while not any(e["type"] == "tool_call" for e in app.events(session)):
                    pass
                code, body = status_of(lambda: app.api(f"/sessions/{session}", method="DELETE"))
                self.assertEqual((code, body["code"]), (409, "busy"))
                app.api(f"/sessions/{session}/interrupt", {}).close()
                app.api(f"/sessions/{session}", method="DELETE").close()
        finally:
            provider.close()


class ArchiveAndFindTest(unittest.TestCase):
    def test_archive_then_find(self):
        provider = Provider(lambda request: text("ok"))
        try:
            with Albedo(provider) as app:
                first = app.session()
                app.prompt(first, "Refactor the PARSER").close()
                app.idle(first)
                second = app.session()
                app.prompt(second, "write the docs").close()
                app.idle(second)
                route = f"/sessions/{first}?view=configuration"
                code, body = status_of(lambda: app.api(route, {"archived": True}, method="PATCH"))
                self.assertEqual(code, 428, body)
                with app.api(route, {"archived": True}, method="PATCH", headers={"If-Match": etag(app, first)}) as response:
                    self.assertTrue(json.load(response)["archived"])

                def listed(query=""):
                    with app.api(f"/sessions{query}") as response:
                        return [s["id"] for s in json.load(response)], response.headers.get("X-Next-Cursor")

                self.assertEqual(listed()[0], [second])
                self.assertEqual(listed("?archived=true")[0], [first])
                self.assertEqual(sorted(listed("?archived=all")[0]), sorted([first, second]))
                self.assertEqual(listed("?archived=all&q=parser")[0], [first])
                self.assertEqual(listed(f"?q={second[:6]}")[0], [second])
                self.assertEqual(listed(f"?workspace={app.workspace}")[0], [second])
                self.assertEqual(listed("?workspace=/elsewhere")[0], [])
                page, cursor = listed("?archived=all&limit=1")
                self.assertEqual(len(page), 1)
                self.assertIsNotNone(cursor)
                rest, end = listed(f"?archived=all&limit=1&cursor={cursor}")
                self.assertEqual(page + rest, listed("?archived=all")[0])
                self.assertIsNone(end)
                with app.api(route, {"archived": False}, method="PATCH", headers={"If-Match": etag(app, first)}) as response:
                    self.assertFalse(json.load(response)["archived"])
                self.assertEqual(sorted(listed()[0]), sorted([first, second]))
        finally:
            provider.close()


# --------------------------------------------------------------------------
# the CLI


def albedo(app, *args, stdin=""):
    """Runs the CLI in the workspace; returns the completed process."""
    import subprocess

    from harness import binary

    return subprocess.run(
        [str(binary()), *map(str, args)], cwd=app.workspace, env=app.env(),
        input=stdin, capture_output=True, text=True, timeout=60,
    )


class CLITest(unittest.TestCase):
    def test_rm_archive_sessions_and_continue(self):
        provider = Provider(lambda request: text("ok"))
        try:
            with Albedo(provider) as app:
                first = app.session()
                app.prompt(first, "Refactor the PARSER").close()
                app.idle(first)
                second = app.session()
                app.prompt(second, "write the docs").close()
                app.idle(second)

                listed = albedo(app, "sessions", "--search", "parser")
                self.assertEqual(listed.returncode, 0, listed.stderr)
                self.assertIn(first, listed.stdout)
                self.assertNotIn(second, listed.stdout)
                self.assertEqual(len(albedo(app, "sessions", "-n", "1").stdout.strip().splitlines()), 2)

                archived = albedo(app, "archive", first)
                self.assertEqual(archived.returncode, 0, archived.stderr)
                self.assertNotIn(first, albedo(app, "sessions").stdout)
                self.assertIn(first, albedo(app, "sessions", "--archived").stdout)
                self.assertNotIn(second, albedo(app, "sessions", "--archived").stdout)
                both = albedo(app, "sessions", "--all").stdout
                self.assertIn(first, both)
                self.assertIn(second, both)

                # run --continue takes the most recent session in this folder
                ran = albedo(app, "run", "--continue", "and the tests")
                self.assertEqual(ran.returncode, 0, ran.stderr)
                self.assertIn("and the tests", [e.get("text") for e in app.events(second)])

                # rm asks first; no answer keeps the session
                kept = albedo(app, "rm", second, stdin="n\n")
                self.assertEqual(kept.returncode, 0, kept.stderr)
                self.assertIn("[y/N]", kept.stderr)
                self.assertIn(second, albedo(app, "sessions").stdout)
                gone = albedo(app, "rm", second, stdin="y\n")
                self.assertEqual(gone.returncode, 0, gone.stderr)
                self.assertNotIn(second, albedo(app, "sessions", "--all").stdout)
                quiet = albedo(app, "rm", "--yes", first)
                self.assertEqual(quiet.returncode, 0, quiet.stderr)
                self.assertNotIn("[y/N]", quiet.stderr)
                self.assertIn("no sessions", albedo(app, "sessions", "--all").stdout)
                unknown = albedo(app, "rm", "--yes", first)
                self.assertNotEqual(unknown.returncode, 0)
        finally:
            provider.close()

    def test_rm_refuses_a_running_session(self):
        provider = Provider(lambda request: python("import time\ntime.sleep(30)"))
        try:
            with Albedo(provider) as app:
                session = app.session()
                app.prompt(session, "sleep").close()
                while not any(e["type"] == "tool_call" for e in app.events(session)):
                    pass
                refused = albedo(app, "rm", "--yes", session)
                self.assertEqual(refused.returncode, 1, refused.stderr)
                self.assertIn("running", refused.stderr)
                self.assertIn(session, albedo(app, "sessions").stdout)
                app.api(f"/sessions/{session}/interrupt", {}).close()
        finally:
            provider.close()


if __name__ == "__main__":
    unittest.main()
