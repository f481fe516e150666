#!/usr/bin/env python3
"""Lines of product Go code (non-test .go files under albedo/, adapters/,
frontends/, cmd/ and internal/), per folder, at a base commit and at HEAD,
with the lines of features added since the base told apart two ways, so
that what became of the code already there shows:

    python3 scripts/linecount.py [BASE]     (default 6a1f323, where the
                                             Simplify issue was filed)

- by file: the files that belong to a new feature (FEATURE_FILES) are
  new; every other line at HEAD is old code. Lines a feature added inside
  an older file count as old, so this change is too large.
- by blame: each line at HEAD is blamed (`git blame -w`); a line last
  changed by a commit after BASE whose subject names a new feature
  (FEATURE_COMMITS, listed at the end) is new; every other line is old
  code. A feature commit that also reworked old lines counts them as new,
  and a later rework of a feature's lines counts them as old.

"change" is old code at HEAD less the lines at BASE. The commits since
BASE that count as old code are listed last, so that a reader can see
which of them add features and judge the classification.
"""

from __future__ import annotations

from collections import Counter, defaultdict
import re
import subprocess
import sys

ROOTS = ["albedo", "adapters", "frontends", "cmd", "internal"]

FEATURE_FILES = re.compile(
    "|".join(
        [
            r"^adapters/(mcp|postgres|gitshadow)/",
            r"^(albedo|frontends)/(storecopy|web)/",
            r"(^|/)(mcp|mcpstatus|cmd_mcp|toolservers|cmd_store|web|routes_web|cmd_web)\.go$",
            r"^albedo/engine/servertools?(_[a-z]+)?\.go$",
            r"^frontends/markup/html\.go$",
            r"^adapters/projectfiles/(skills|frontmatter)\.go$",
            r"^albedo/(engine/)?skills\.go$",
            r"^adapters/localfs/(readdir|beneath|beneath_linux|beneath_other|beneath_unix|root|walk_unix)\.go$",
            r"^adapters/landlock/(held|held_linux|held_other|init_linux|limits_linux|mounts_linux|privileges_linux)\.go$",
            r"^adapters/pykernel/(namespace_linux|namespace_other|probe)\.go$",
            r"^frontends/daemon/(connlimit|server)\.go$",
            r"(^|/)(checkpoints?|rewind|leases?|notify|live)(_[a-z]+)?\.go$",
        ]
    )
)

FEATURE_COMMITS = re.compile(
    r"^(MCP|Skills|Web page|Checkpoints|Leases?|Sandbox|PostgreSQL store|Store: a PostgreSQL store"
    r"|albedo store copy|Daemon: ALBEDO_STORE_URL|Daemon: HTTP guards|Console: /mcp"
    r"|Files the daemon opens for the model reach no further|Rewind|Several daemons share"
    r"|A session's stream on any daemon sharing|GET /sessions/\{id\}/checkpoints"
    r"|GET /sessions/\{id\}/diff|A message sent through any daemon sharing|ALBEDO_WORKSPACE_MAP"
    r"|A turn waits for an MCP server's listing|Daemons sharing a PostgreSQL store"
    r"|An interrupt sent to a daemon that does not run|A running session whose lease"
    r"|The message telling the model albedo restarted mid-turn names each MCP"
    r"|A daemon taking a session's lease|Kernels run in a PID namespace)\b"
)

# Commits whose subject starts like a feature's but that only rework old
# code, counted as old.
REWORK_COMMITS = re.compile(r"^Sandbox: the status of the policy in force and of a given one are assessed by one method")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def product_files(rev: str) -> list[str]:
    names = git("ls-tree", "-r", "--name-only", rev, "--", *ROOTS).split()
    return [f for f in names if f.endswith(".go") and not f.endswith("_test.go")]


def folder(path: str) -> str:
    return path.rsplit("/", 1)[0]


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "6a1f323"
    before: Counter[str] = Counter()
    for f in product_files(base):
        before[folder(f)] += git("show", f"{base}:{f}").count("\n")
    later = dict(line.split(" ", 1) for line in git("log", "--format=%H %s", f"{base}..HEAD").splitlines())
    head, by_file, by_blame = Counter(), Counter(), Counter()
    commits: Counter[str] = Counter()
    others: Counter[str] = Counter()
    for f in product_files("HEAD"):
        d = folder(f)
        for line in git("blame", "--porcelain", "-w", "HEAD", "--", f).splitlines():
            m = re.match(r"([0-9a-f]{40}) \d+ \d+", line)
            if not m:
                continue
            head[d] += 1
            if FEATURE_FILES.search(f):
                by_file[d] += 1
            sha = m.group(1)
            if sha in later and FEATURE_COMMITS.search(later[sha]) and not REWORK_COMMITS.search(later[sha]):
                by_blame[d] += 1
                commits[sha] += 1
            elif sha in later:
                others[sha] += 1
    print(f"{'':28} {'':>7} {'':>7} {'-- by file --':>24} {'-- by blame --':>24}")
    print(f"{'folder':28} {base:>7} {'HEAD':>7} {'new':>7} {'old':>7} {'change':>8} {'new':>7} {'old':>7} {'change':>8}")
    rows = sorted(set(before) | set(head))
    for d in rows + ["total"]:
        if d == "total":
            b, h, nf, nb = (sum(c.values()) for c in (before, head, by_file, by_blame))
        else:
            b, h, nf, nb = before[d], head[d], by_file[d], by_blame[d]
        mark = "  new" if b == 0 and h > 0 and nf == h else ""
        print(f"{d:28} {b:7d} {h:7d} {nf:7d} {h - nf:7d} {h - nf - b:+8d} {nb:7d} {h - nb:7d} {h - nb - b:+8d}{mark}")
    print("\nfeature commits, by the lines of HEAD they last changed:")
    for sha, n in commits.most_common():
        print(f"  {n:6d} {sha[:9]} {later[sha][:100]}")
    print("\nother commits since the base (counted as old code), by the lines of HEAD they last changed:")
    for sha, n in others.most_common(40):
        print(f"  {n:6d} {sha[:9]} {later[sha][:100]}")


if __name__ == "__main__":
    main()
