"""albedo's acceptance runner.

    python3 acceptance/run.py [-k PATTERN]...

Runs, one at a time and against the built binary (``$ALBEDO_TEST_BINARY`` or
``<repo>/bin/albedo``; building it is the caller's job):

* the project's own suites, ``acceptance/test_*.py``;
* when ``<repo>/../shared/seeds`` (or ``$ALBEDO_TEST_SEEDS``) exists, the seed suites ``integration_test``
  and ``paperclips_test`` from there (they import our ``harness``), and the
  standalone ``e2e_script.py`` as one extra test with the id
  ``seeds.e2e_script``.

Seed tests listed in ``acceptance/seeds_pending.txt`` are reported as skipped
with the listed reason; nothing else is ever skipped, but in a run with
``--store postgresql``, where every daemon keeps its data in a PostgreSQL
database of its own on the server ``$ALBEDO_TEST_POSTGRES_URL`` names, the
tests listed in ``acceptance/postgres_skip.txt`` (they read or write
albedo.sqlite themselves) are skipped with the listed reason. A listed id that names
no seed test is an error. ``-k`` keeps only tests whose id matches the
pattern (a substring, or a shell-style wildcard pattern), like unittest's.

Every model request a harness Provider receives is checked against OpenAI's
published request schemas (``wirecheck.py``); a request outside them fails
the test that sent it.

The output ends with one line ``N passed, N failed, N skipped``. Exit status:
0 when nothing failed, 1 when a test failed or errored, 2 when the run could
not be set up (missing binary, bad pending list).
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # the seed folder is read-only: never write .pyc

import argparse
import fnmatch
import importlib
import os
from pathlib import Path
import subprocess
import traceback
import unittest

ACCEPTANCE = Path(__file__).resolve().parent
REPO = ACCEPTANCE.parent
SEEDS = Path(os.environ.get("ALBEDO_TEST_SEEDS") or REPO.parent / "shared" / "seeds")
PENDING = ACCEPTANCE / "seeds_pending.txt"
POSTGRES_SKIP = ACCEPTANCE / "postgres_skip.txt"
SEED_MODULES = ("integration_test", "paperclips_test")
E2E_ID = "seeds.e2e_script"
E2E_TIMEOUT = 600


class SetupError(Exception):
    """The run cannot start; the message says why."""


class E2EScript(unittest.TestCase):
    """Runs the seed's standalone end-to-end script against the binary."""

    seeds: Path = SEEDS

    def id(self) -> str:
        return E2E_ID

    def __str__(self) -> str:
        return E2E_ID

    def shortDescription(self):
        return None

    def test_e2e_script(self):
        script = self.seeds / "e2e_script.py"
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        try:
            result = subprocess.run(
                [sys.executable, str(script)],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=E2E_TIMEOUT,
            )
        except subprocess.TimeoutExpired as error:
            output = error.stdout or ""
            if isinstance(output, bytes):
                output = output.decode(errors="replace")
            self.fail(f"e2e_script.py timed out after {E2E_TIMEOUT} s\n{output}")
        if result.returncode != 0:
            self.fail(f"e2e_script.py exited {result.returncode}\n{result.stdout}")


def binary() -> Path:
    """The binary under test; exported to the suites through the environment."""
    chosen = os.environ.get("ALBEDO_TEST_BINARY")
    path = Path(chosen).resolve() if chosen else REPO / "bin" / "albedo"
    if not path.is_file() or not os.access(path, os.X_OK):
        raise SetupError(
            f"albedo binary not found or not executable: {path}\n"
            "build it first: bash scripts/build.sh "
            "(or point ALBEDO_TEST_BINARY at one)"
        )
    return path


def flatten(suite) -> list[unittest.TestCase]:
    """Every test case in a (nested) suite, in order."""
    tests = []
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            tests.extend(flatten(item))
        else:
            tests.append(item)
    return tests


def read_pending(path: Path) -> dict[str, str]:
    """Parses seeds_pending.txt: ``<test id> <reason...>`` per line."""
    pending: dict[str, str] = {}
    if not path.exists():
        return pending
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test_id, _, reason = line.partition(" ")
        reason = reason.strip()
        if not reason:
            raise SetupError(f"{path.name}:{number}: {test_id} needs a reason")
        if test_id in pending:
            raise SetupError(f"{path.name}:{number}: {test_id} is listed twice")
        pending[test_id] = reason
    return pending


def mark_skipped(test: unittest.TestCase, reason: str) -> None:
    """Makes ``test`` report as skipped without running setUp or the body."""

    def pending():
        pass

    pending.__unittest_skip__ = True
    pending.__unittest_skip_why__ = reason
    setattr(test, test._testMethodName, pending)


def matches(test_id: str, patterns: list[str]) -> bool:
    """unittest's -k rule: a pattern without wildcards matches as a substring."""
    for pattern in patterns:
        if not any(char in pattern for char in "*?["):
            pattern = f"*{pattern}*"
        if fnmatch.fnmatchcase(test_id, pattern):
            return True
    return False


def collect(patterns: list[str], store: str = "sqlite") -> unittest.TestSuite:
    """Loads every suite, applies the pending list, then the -k filter."""
    sys.path.insert(0, str(ACCEPTANCE))
    loader = unittest.TestLoader()
    own = flatten(
        loader.discover(str(ACCEPTANCE), pattern="test_*.py", top_level_dir=str(ACCEPTANCE))
    )

    seeds: list[unittest.TestCase] = []
    if SEEDS.is_dir():
        # after acceptance/, so `import harness` resolves to ours
        sys.path.insert(1, str(SEEDS))
        for name in SEED_MODULES:
            if not (SEEDS / f"{name}.py").exists():
                continue
            try:
                module = importlib.import_module(name)
            except Exception:
                raise SetupError(
                    f"cannot import seed suite {name}:\n{traceback.format_exc()}"
                ) from None
            seeds.extend(flatten(loader.loadTestsFromModule(module)))
        if (SEEDS / "e2e_script.py").exists():
            seeds.append(E2EScript("test_e2e_script"))

    pending = read_pending(PENDING)
    known = {test.id() for test in seeds}
    unknown = sorted(set(pending) - known)
    if unknown:
        raise SetupError(
            f"{PENDING.name} lists ids that name no seed test: " + ", ".join(unknown)
        )
    for test in seeds:
        if test.id() in pending:
            mark_skipped(test, pending[test.id()])

    tests = own + seeds
    if store == "postgresql":
        sqlite_only = read_pending(POSTGRES_SKIP)
        # Ids of suites that are not there (no seeds folder) are not checked.
        modules = {test.id().split(".")[0] for test in tests}
        unknown = sorted(i for i in set(sqlite_only) - {test.id() for test in tests} if i.split(".")[0] in modules)
        if unknown:
            raise SetupError(f"{POSTGRES_SKIP.name} lists ids that name no test: " + ", ".join(unknown))
        for test in tests:
            if test.id() in sqlite_only:
                mark_skipped(test, sqlite_only[test.id()])
    if patterns:
        tests = [test for test in tests if matches(test.id(), patterns)]
    return unittest.TestSuite(tests)


class Result(unittest.TextTestResult):
    """Keeps one outcome per test (subtest failures count once)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.started: set[str] = set()
        self.failed: set[str] = set()
        self.skipped_ids: set[str] = set()

    @staticmethod
    def _owner(test) -> str:
        return getattr(test, "test_case", test).id()

    def startTest(self, test):
        self.started.add(test.id())
        harness.WIRE_CHECKS.take()  # problems belong to the test that sent them
        super().startTest(test)

    def stopTest(self, test):
        problems = harness.WIRE_CHECKS.take()
        if problems:
            try:
                raise AssertionError(
                    f"{len(problems)} request(s) outside openai-openapi-requests.json:\n"
                    + "\n".join(problems[:20])
                )
            except AssertionError:
                self.addFailure(test, sys.exc_info())
        super().stopTest(test)

    def addError(self, test, err):
        self.failed.add(self._owner(test))
        super().addError(test, err)

    def addFailure(self, test, err):
        self.failed.add(self._owner(test))
        super().addFailure(test, err)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self.failed.add(test.id())
        super().addSubTest(test, subtest, err)

    def addUnexpectedSuccess(self, test):
        self.failed.add(test.id())
        super().addUnexpectedSuccess(test)

    def addSkip(self, test, reason):
        if not hasattr(test, "test_case"):
            self.skipped_ids.add(test.id())
        super().addSkip(test, reason)

    def tally(self) -> tuple[int, int, int]:
        skipped = self.skipped_ids - self.failed
        passed = self.started - self.failed - skipped
        return len(passed), len(self.failed), len(skipped)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Run albedo's acceptance tests.")
    parser.add_argument(
        "-k",
        dest="patterns",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only run tests whose id matches (substring or wildcard); repeatable",
    )
    parser.add_argument(
        "--store",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="where the daemons keep their data; postgresql needs $ALBEDO_TEST_POSTGRES_URL",
    )
    options = parser.parse_args(argv)
    try:
        os.environ["ALBEDO_TEST_BINARY"] = str(binary())
        os.environ.pop("ALBEDO_TEST_STORE", None)
        if options.store == "postgresql":
            if not os.environ.get("ALBEDO_TEST_POSTGRES_URL"):
                raise SetupError("--store postgresql needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
            os.environ["ALBEDO_TEST_STORE"] = "postgresql"
        suite = collect(options.patterns, options.store)
        global harness
        import harness  # after collect() put acceptance/ on the path
    except SetupError as error:
        print(f"acceptance: {error}", file=sys.stderr)
        return 2
    runner = unittest.TextTestRunner(
        stream=sys.stdout, verbosity=2, resultclass=Result, buffer=False
    )
    result = runner.run(suite)
    print(f"wire check: {harness.WIRE_CHECKS.checked} model requests checked against the published schemas")
    passed, failed, skipped = result.tally()
    sys.stdout.flush()
    print(f"{passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 1 if failed or not result.wasSuccessful() else 0


if __name__ == "__main__":
    sys.exit(main())
