#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests: sourced by test.sh,
# or run by hand as `scripts/postgres.sh` for a shell that has it (exit the
# shell and the cluster goes).
#
# postgres_start installs PostgreSQL with apt when it is missing, makes a
# cluster in a temporary folder (as the user nobody when run as root:
# PostgreSQL refuses to run as root), starts it on a free loopback port
# with a random password, and exports ALBEDO_TEST_POSTGRES_URL naming it.
# postgres_stop stops the cluster and removes its folder; test.sh calls it
# from its exit trap, so it runs whatever happened.

postgres_bindir() {
	local dir
	dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

postgres_start() {
	local bindir
	bindir=$(postgres_bindir || true)
	if [ -z "$bindir" ]; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
			echo "== installing PostgreSQL for the store tests"
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >/dev/null
			bindir=$(postgres_bindir || true)
		fi
		if [ -z "$bindir" ]; then
			echo "the PostgreSQL store tests need PostgreSQL (initdb, pg_ctl); install the postgresql package" >&2
			return 1
		fi
	fi
	POSTGRES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/albedo-postgres.XXXXXX")
	local as=()
	if [ "$(id -u)" = 0 ]; then
		chown nobody "$POSTGRES_DIR"
		as=(runuser -u nobody --)
	fi
	local password port
	password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	printf '%s\n' "$password" >"$POSTGRES_DIR/pw"
	[ "$(id -u)" = 0 ] && chown nobody "$POSTGRES_DIR/pw"
	if ! "${as[@]}" "$bindir/initdb" -D "$POSTGRES_DIR/data" -U albedo --pwfile="$POSTGRES_DIR/pw" \
		--auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$POSTGRES_DIR/initdb.log" 2>&1; then
		cat "$POSTGRES_DIR/initdb.log" >&2
		echo "initdb failed" >&2
		return 1
	fi
	rm -f "$POSTGRES_DIR/pw"
	# Throwaway data: no fsync. Enough connections for the tests'
	# databases, one per test, opened in parallel.
	if ! "${as[@]}" "$bindir/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w -t 60 \
		-o "-p $port -c listen_addresses=127.0.0.1 -k $POSTGRES_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
		start >/dev/null; then
		cat "$POSTGRES_DIR/server.log" >&2 || true
		echo "PostgreSQL did not start" >&2
		return 1
	fi
	POSTGRES_BINDIR=$bindir
	export ALBEDO_TEST_POSTGRES_URL="postgres://albedo:$password@127.0.0.1:$port/postgres?sslmode=disable"
	echo "== PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

postgres_stop() {
	[ -n "${POSTGRES_DIR:-}" ] || return 0
	if [ -f "$POSTGRES_DIR/data/postmaster.pid" ]; then
		local as=()
		[ "$(id -u)" = 0 ] && as=(runuser -u nobody --)
		"${as[@]}" "$POSTGRES_BINDIR/pg_ctl" -D "$POSTGRES_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$POSTGRES_DIR"
	POSTGRES_DIR=
}

# Run by hand: a shell with the cluster, gone when the shell exits.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	trap postgres_stop EXIT
	postgres_start
	echo "ALBEDO_TEST_POSTGRES_URL=$ALBEDO_TEST_POSTGRES_URL"
	"${SHELL:-bash}"
fi
