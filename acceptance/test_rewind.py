"""Checkpoints and rewind: what a session's cells (and the programs they
ran) did to the workspace's files is put back, and nothing else is."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

from harness import Albedo, http_error, python, read, start_albedo, text, turn, wait_until
from scripts import latest_user, outputs_since_user

SHELL = (
    "import subprocess\n"
    "subprocess.run('echo x > b.txt; rm c.txt; sed -i s/1/2/ d.txt; chmod +x e.sh', shell=True, check=True)"
)
MANY = "for i in range(1000):\n    open(f'many/f{i:04}.txt', 'w').write('new\\n')"

# The cells each prompt runs, one per model request, then an answer.
CELLS = {
    "shell": [python("open('a.txt', 'w').write('a\\n')"), python(SHELL)],
    "edit": [python("open('d.txt', 'w').write('cell\\n'); open('a.txt', 'w').write('a\\n')")],
    "tracked": [python("open('tracked.txt', 'w').write('changed\\n'); open('new.txt', 'w').write('new\\n')")],
    "many": [python(MANY)],
    "probe": [python("print('ran')")],
    "diffed": [python(
        "import os\n"
        "open('edit.txt', 'w').write('one\\nTWO\\nthree\\nfour\\n')\n"
        "open('new.txt', 'w').write('n1\\nn2\\n')\n"
        "os.remove('gone.txt')\n"
        "open('long.txt', 'w').write(''.join(f'line {i} of a long new file\\n' for i in range(3000)))"
    )],
}


def script(request):
    user, done = latest_user(request), len(outputs_since_user(request))
    for key, cells in CELLS.items():
        if key in user and done < len(cells):
            return cells[done]
    return text("done")


def files(root: Path, *, skip_git: bool = True) -> dict:
    """Each file under root (not in .git): its mode, content hash and mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if skip_git and ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            out[str(path.relative_to(root))] = (oct(st.st_mode), digest, st.st_mtime_ns)
    return out


def contents(state: dict) -> dict:
    """A files() state without the mtimes."""
    return {path: value[:2] for path, value in state.items()}


def write(path: Path, content: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    path.chmod(mode)


def rewind(app: Albedo, session: str, checkpoint: int, **options) -> dict:
    with app.api(f"/sessions/{session}/rewind", {"checkpoint": checkpoint, **options}) as response:
        return json.load(response)


def first_user(app: Albedo, session: str) -> int:
    return next(item["seq"] for item in app.history(session)["items"] if item["kind"] == "user")


def git(workspace: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x",
           "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}
    return subprocess.run(["git", *args], cwd=workspace, env=env, check=True, capture_output=True, text=True).stdout


def repository(workspace: Path) -> dict:
    """What must never change of a git repository: HEAD, refs, the index
    file's hash, its objects' count, and every file under .git."""
    dot = workspace / ".git"
    return {
        "HEAD": (dot / "HEAD").read_text(),
        "refs": git(workspace, "for-each-ref"),
        "index": hashlib.sha256((dot / "index").read_bytes()).hexdigest(),
        "count-objects": git(workspace, "count-objects", "-v"),
        "files": files(dot, skip_git=False),
    }


def git_folders(root: Path) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob(".git"))


class RewindTest(unittest.TestCase):
    def start(self, **options):
        self.provider, app = start_albedo(self.addCleanup, script, **options)
        return app

    def test_a_rewind_undoes_a_cell_and_a_subprocess_byte_for_byte_and_is_undone(self):
        app = self.start()
        self.assertIn("snapshots", read(app, "/health")["capabilities"])
        ws = app.workspace
        write(ws / "c.txt", "c\n")
        write(ws / "d.txt", "1\n1\n")
        write(ws / "e.sh", "echo e\n")
        before = contents(files(ws))
        session = app.session()
        turn(app, session, "shell")
        after = files(ws)
        self.assertEqual(sorted(after), ["a.txt", "b.txt", "d.txt", "e.sh"])
        checkpoint = first_user(app, session)
        steps = read(app, f"/sessions/{session}/checkpoints")["items"]
        self.assertEqual([(s["created"], s["modified"], s["deleted"]) for s in steps], [(1, 0, 0), (1, 2, 1)])

        dry = rewind(app, session, checkpoint, dry_run=True)
        self.assertEqual(sorted(c["path"] for c in dry["restored"]), ["a.txt", "b.txt", "c.txt", "d.txt", "e.sh"])
        self.assertEqual(files(ws), after, "a dry run changed a file or an mtime")

        out = app.cli("rewind", session, checkpoint)
        self.assertEqual(contents(files(ws)), before)
        undo = int(re.search(r"undo: albedo rewind \S+ (\d+)", out).group(1))

        start = len(self.provider.requests)
        turn(app, session, "what now?")
        sent = json.dumps(self.provider.requests[start]["request"])
        self.assertEqual(sent.count("rewound the workspace"), 1, sent)
        self.assertIn("may be stale", sent)

        rewind(app, session, undo)
        self.assertEqual(contents(files(ws)), contents(after))

    def test_a_diff_lists_each_file_with_its_status_and_line_counts_and_cuts_long_patches(self):
        app = self.start()
        ws = app.root / "diffs"
        write(ws / "edit.txt", "one\ntwo\nthree\n")
        write(ws / "gone.txt", "g1\ng2\ng3\n")
        session = app.session(ws)
        turn(app, session, "diffed")
        diff = read(app, f"/sessions/{session}/diff")
        self.assertEqual(diff["from"], 0)
        self.assertEqual(diff["to"], app.history(session)["items"][-1]["seq"])
        summary = [(f["path"], f["status"], f["added"], f["deleted"]) for f in diff["files"]]
        self.assertEqual(summary, [("edit.txt", "modified", 2, 1), ("gone.txt", "deleted", 0, 3),
                                   ("long.txt", "created", 3000, 0), ("new.txt", "created", 2, 0)])
        by_path = {f["path"]: f for f in diff["files"]}
        self.assertIn("-two\n+TWO\n three\n+four\n", by_path["edit.txt"]["patch"])
        self.assertFalse(by_path["edit.txt"].get("patch_cut"))
        long = by_path["long.txt"]
        self.assertTrue(long["patch_cut"])
        self.assertLessEqual(len(long["patch"]), 32 * 1024 + 200)
        self.assertTrue(long["patch"].splitlines()[-1].startswith("\\ albedo: patch cut"), long["patch"][-200:])

        out = app.cli("diff", session)
        self.assertRegex(out, r"modified\s+\+2 -1\s+edit.txt")
        self.assertRegex(out, r"deleted\s+\+0 -3\s+gone.txt")
        last = diff["to"]
        self.assertEqual(read(app, f"/sessions/{session}/diff?from={last}")["files"], [])
        for query, status in [("from=x", 400), ("to=-1", 400), (f"from={last}&to=1", 400), (f"to={last + 5}", 404)]:
            status_got, body = http_error(self, lambda: app.api(f"/sessions/{session}/diff?{query}"))
            self.assertEqual(status_got, status, (query, body))
            self.assertTrue(body["error"], body)

    def test_the_users_own_changes_are_kept_and_shared_ones_refused_unless_forced(self):
        app = self.start()
        ws = app.root / "edits"
        write(ws / "d.txt", "1\n")
        session = app.session(ws)
        turn(app, session, "edit")
        write(ws / "d.txt", "user\n")
        write(ws / "u.txt", "user\n")
        touched = files(ws)
        checkpoint = first_user(app, session)

        status, body = http_error(self, lambda: app.api(f"/sessions/{session}/rewind", {"checkpoint": checkpoint}))
        self.assertEqual((status, body["code"]), (409, "conflict"), body)
        self.assertEqual(body["conflicts"], ["d.txt"])
        self.assertIn("d.txt", body["error"])
        self.assertEqual(files(ws), touched, "a refused rewind changed something")

        dry = rewind(app, session, checkpoint, dry_run=True)
        self.assertEqual([c["path"] for c in dry["kept"]], ["u.txt"])
        self.assertEqual([c["path"] for c in dry["conflicts"]], ["d.txt"])

        done = rewind(app, session, checkpoint, force=True)
        self.assertEqual([c["path"] for c in done["kept"]], ["u.txt"])
        self.assertEqual(sorted(c["path"] for c in done["restored"]), ["a.txt", "d.txt"])
        self.assertEqual(sorted(os.listdir(ws)), ["d.txt", "u.txt"])
        self.assertEqual((ws / "d.txt").read_text(), "1\n")
        self.assertEqual(files(ws)["u.txt"], touched["u.txt"])

    def test_the_users_repository_ignored_large_and_generated_files_are_untouched(self):
        def prepare(app):
            settings = json.loads((app.home / "extensions.json").read_text())
            settings["checkpoints"] = {"maxFileBytes": 1000}
            (app.home / "extensions.json").write_text(json.dumps(settings))

        app = self.start(prepare=prepare)
        ws = app.root / "repo"
        write(ws / "tracked.txt", "tracked\n")
        write(ws / ".gitignore", "*.log\n")
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", "first")
        write(ws / "tracked.txt", "staged\n")
        git(ws, "add", "tracked.txt")
        write(ws / "debug.log", "log\n")
        write(ws / "node_modules/pkg/index.js", "js\n")
        write(ws / "big.bin", "x" * 2000)
        repo, folders = repository(ws), git_folders(app.root)
        session = app.session(ws)
        turn(app, session, "tracked")
        # The user changes what no snapshot holds after the turn.
        write(ws / "debug.log", "log 2\n")
        write(ws / "node_modules/pkg/index.js", "js 2\n")
        write(ws / "big.bin", "y" * 3000)
        left = {p: v for p, v in files(ws).items() if p in ("debug.log", "node_modules/pkg/index.js", "big.bin")}

        done = rewind(app, session, first_user(app, session))
        self.assertEqual(sorted(c["path"] for c in done["restored"]), ["new.txt", "tracked.txt"])
        self.assertEqual((done["kept"], done["conflicts"]), ([], []))
        self.assertEqual((ws / "tracked.txt").read_text(), "staged\n")
        self.assertFalse((ws / "new.txt").exists())
        self.assertEqual({p: v for p, v in files(ws).items() if p in left}, left)
        self.assertEqual(repository(ws), repo, "the user's repository changed")
        self.assertEqual(git_folders(app.root), folders, "a .git appeared")

    def test_pruned_snapshots_refuse_rewinds_and_diffs_and_kept_ones_still_rewind(self):
        def prepare(app):
            settings = json.loads((app.home / "extensions.json").read_text())
            settings["checkpoints"] = {"keepSnapshots": 2}
            (app.home / "extensions.json").write_text(json.dumps(settings))

        app = self.start(prepare=prepare)
        ws = app.workspace
        write(ws / "c.txt", "c\n")
        write(ws / "d.txt", "1\n1\n")
        write(ws / "e.sh", "echo e\n")
        session = app.session()
        turn(app, session, "shell")
        outputs = [s["seq"] for s in read(app, f"/sessions/{session}/checkpoints")["items"]]
        # Three snapshots: as the turn started, after each cell; the daemon
        # prunes as it starts and keeps the two newest.
        app.restart()
        steps = f"/sessions/{session}/checkpoints"
        self.assertTrue(wait_until(lambda: read(app, steps)["items"][0].get("pruned")), read(app, steps))
        self.assertFalse(read(app, steps)["items"][1].get("pruned"))

        for call in (lambda: app.api(f"/sessions/{session}/rewind", {"checkpoint": first_user(app, session)}),
                     lambda: app.api(f"/sessions/{session}/diff")):
            status, body = http_error(self, call)
            self.assertEqual((status, body["code"], body.get("pruned")), (409, "conflict", True), body)
            self.assertIn("pruned", body["error"])
        self.assertEqual(sorted(os.listdir(ws)), ["a.txt", "b.txt", "d.txt", "e.sh"], "a refused rewind changed files")

        diff = read(app, f"/sessions/{session}/diff?from={outputs[0]}")
        self.assertEqual([f["path"] for f in diff["files"]], ["b.txt", "c.txt", "d.txt", "e.sh"])
        done = rewind(app, session, outputs[0])
        self.assertEqual(sorted(c["path"] for c in done["restored"]), ["b.txt", "c.txt", "d.txt", "e.sh"])
        self.assertEqual(sorted(os.listdir(ws)), ["a.txt", "c.txt", "d.txt", "e.sh"])
        self.assertEqual((ws / "d.txt").read_text(), "1\n1\n")

    def test_a_rewind_cut_by_a_crash_lands_whole_at_the_next_start(self):
        app = self.start()
        ws = app.workspace
        for i in range(1000):
            write(ws / "many" / f"f{i:04}.txt", "old\n")
        session = app.session()
        turn(app, session, "many")
        checkpoint = first_user(app, session)
        journal = str(app.home / "checkpoints" / "*" / "restore.json")
        done = threading.Event()

        def call():
            try:
                rewind(app, session, checkpoint)
            except OSError:
                pass  # the daemon was killed under it
            finally:
                done.set()

        threading.Thread(target=call, daemon=True).start()
        self.assertTrue(wait_until(lambda: glob.glob(journal) or done.is_set(), interval=0.001))
        app.restart(crash=True)
        seen = {(ws / "many" / f"f{i:04}.txt").read_text() for i in range(1000)}
        self.assertEqual(seen, {"old\n"}, "the tree is neither the old state nor the new one")
        self.assertEqual(glob.glob(journal), [])


class WithoutGitTest(unittest.TestCase):
    def test_without_git_turns_work_and_rewinds_are_refused(self):
        bin_dir = Path(tempfile.mkdtemp(prefix="albedo-nogit-"))
        self.addCleanup(shutil.rmtree, bin_dir, True)
        os.symlink(shutil.which("python3"), bin_dir / "python3")

        class NoGit(Albedo):
            def env(self):
                return {**super().env(), "PATH": str(bin_dir)}

        _, app = start_albedo(self.addCleanup, script, daemon=NoGit)
        self.assertNotIn("snapshots", read(app, "/health")["capabilities"])
        session = app.session()
        turn(app, session, "probe")
        results = [e for e in app.events(session) if e.get("type") == "tool"]
        self.assertEqual(json.loads(results[-1]["result"])["status"], "ok")
        self.assertNotIn("checkpoint", results[-1].get("trace") or {})
        status, body = http_error(self, lambda: app.api(f"/sessions/{session}/rewind", {"checkpoint": 0}))
        self.assertEqual((status, body["code"]), (409, "conflict"), body)


if __name__ == "__main__":
    unittest.main()
