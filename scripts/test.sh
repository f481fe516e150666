#!/usr/bin/env bash
# Runs every albedo test on a fresh machine: installs what the tests need,
# checks formatting and vet, runs the kernel's Python tests and the Go tests
# with the race detector, builds the binary, runs the web page's tests in
# Chromium against it, and runs the acceptance suites
# (ours, and the seed suites from ../shared/seeds when that folder exists).
# A throwaway PostgreSQL server (scripts/postgres.sh) serves the tests of
# the PostgreSQL store; it is stopped and removed when the script ends.
# Third-party MCP servers (scripts/mcpservers.sh) are installed from the npm
# registry into a scratch prefix, removed at the end too.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/postgres.sh
source scripts/mcpservers.sh
trap 'postgres_stop; mcp_servers_remove' EXIT

need() { command -v "$1" >/dev/null 2>&1; }
if ! need python3; then
	echo "albedo's tests need python3 (3.9 or newer)" >&2
	exit 1
fi
# tmux drives the console tests; git makes the checkpoints' snapshots;
# Chromium runs the web page's browser tests.
missing=()
for tool in tmux git chromium; do
	need "$tool" || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && need apt-get; then
		echo "== installing ${missing[*]} for the tests"
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null
	else
		echo "albedo's tests need ${missing[*]}; install it first" >&2
		exit 1
	fi
fi

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet"
go vet ./...

# The kernel's Python, against the real kernel program (standard library
# unittest only).
echo "== kernel python tests"
python3 -m unittest discover -s adapters/pykernel/python/tests -t adapters/pykernel/python/tests

echo "== PostgreSQL for the store tests"
if ! postgres_start; then
	if [ "${CI:-}" = true ]; then
		echo "PostgreSQL could not start; the PostgreSQL store cannot be tested" >&2
		exit 1
	fi
	echo "PostgreSQL could not start: the PostgreSQL store's tests are skipped" >&2
fi

echo "== MCP servers for the MCP client tests"
if ! mcp_servers_install; then
	if [ "${CI:-}" = true ]; then
		echo "the MCP servers could not be installed; the MCP client cannot be tested against them" >&2
		exit 1
	fi
	echo "the MCP servers could not be installed: the tests against them are skipped" >&2
fi

echo "== go test -race"
go test -race -count=1 ./...

echo "== build"
bash scripts/build.sh

# The web page in a real browser (frontends/web/browser_test.go), against
# the binary just built: about half a minute.
echo "== browser tests"
ALBEDO_TEST_BROWSER="$(command -v chromium)" ALBEDO_TEST_BINARY="$PWD/bin/albedo" \
	go test -count=1 -run '^TestBrowser' ./frontends/web/

echo "== acceptance"
python3 acceptance/run.py

# The suites that say most about a store (the seeds, crash recovery, odd
# text, compaction, long sessions, hand-off, rewind, what a running cell
# prints) again, each daemon on a
# PostgreSQL database of its own: about four minutes.
if [ -n "${ALBEDO_TEST_POSTGRES_URL:-}" ]; then
	echo "== acceptance on PostgreSQL"
	python3 acceptance/run.py --store postgresql -k 'integration_test.*' -k 'paperclips_test.*' \
		-k 'test_crash_soak.*' -k 'test_odd_text.*' -k 'test_compaction.*' -k 'test_long_sessions.*' \
		-k 'test_handoff.*' -k 'test_rewind.*' -k 'test_cell_io.*'
fi
