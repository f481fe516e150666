"""How long a turn cut by its daemon's death takes to resume on another
daemon sharing its PostgreSQL database.

    python3 bench/takeover.py [--repeat N] [--lease SECONDS]

Each round starts two daemons on a new database (ALBEDO_TEST_POSTGRES_URL
names the server; scripts/postgres.sh starts one), runs on the first a
turn whose cell appends to a file in a loop, kills that daemon with
SIGKILL once the cell runs, and times, from the kill, the moment the
other daemon's history shows the restart note (the takeover) and the
moment the turn has finished there. Prints the median and the spread of
`--repeat` (default 10) rounds for a lease time of `--lease` seconds
(default 10, the daemons' default). Figures are for reading, never for
asserting. Build the binary with `bash scripts/build.sh` first, or set
ALBEDO_TEST_BINARY.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "acceptance"))

import test_shared_store as shared  # noqa: E402
from harness import PostgresDatabase, Provider, wait_until  # noqa: E402


def one_round(provider) -> tuple[float, float]:
    """Seconds from the kill to the takeover and to the turn's end."""
    with contextlib.ExitStack() as stack:
        database = PostgresDatabase()
        stack.callback(database.drop)
        a = stack.enter_context(shared.SharedDaemon(provider, database, "node-a"))
        b = stack.enter_context(shared.SharedDaemon(provider, database, "node-b"))
        session = a.session()
        a.prompt(session, "append to the marker").close()
        marker = a.workspace / shared.MARKER
        if not wait_until(lambda: marker.exists() and len(marker.read_text().split()) >= 3):
            raise SystemExit("the cell never ran")
        os.kill(a.connection["pid"], signal.SIGKILL)
        killed = time.monotonic()
        a.connection = None
        took = ended = None
        deadline = killed + shared.LEASE_SECONDS + 60
        while ended is None and time.monotonic() < deadline:
            items = b.history(session)["items"]
            now = time.monotonic() - killed
            if took is None and any(i.get("source") == "daemon restart" for i in items):
                took = now
            if items and items[-1]["kind"] == "turn":
                ended = now
            time.sleep(0.01)
        if took is None or ended is None:
            raise SystemExit("the turn was not taken over")
        return took, ended


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--lease", type=int, default=10, help="ALBEDO_LEASE_SECONDS of both daemons")
    options = parser.parse_args()
    if not os.environ.get("ALBEDO_TEST_POSTGRES_URL"):
        raise SystemExit("needs ALBEDO_TEST_POSTGRES_URL (scripts/postgres.sh starts a server)")
    shared.LEASE_SECONDS = options.lease
    provider = Provider(shared.model)
    try:
        rounds = []
        for n in range(options.repeat):
            rounds.append(one_round(provider))
            print(f"round {n + 1}: taken over {rounds[-1][0]:.2f} s, finished {rounds[-1][1]:.2f} s after the kill", flush=True)
    finally:
        provider.close()
    for name, values in (("taken over", [r[0] for r in rounds]), ("finished", [r[1] for r in rounds])):
        print(f"{name}: median {statistics.median(values):.2f} s, min {min(values):.2f}, max {max(values):.2f} "
              f"(lease {options.lease} s, {len(values)} rounds)")


if __name__ == "__main__":
    main()
