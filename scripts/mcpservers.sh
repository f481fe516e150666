#!/usr/bin/env bash
# Installs the third-party MCP servers the tests reach: sourced by test.sh.
#
# mcp_servers_install installs pinned versions from the npm registry into a
# scratch prefix (never `npx -y` at test time), installing Node.js with apt
# when it is missing, and exports ALBEDO_TEST_MCP_EVERYTHING and
# ALBEDO_TEST_MCP_FILESYSTEM naming the server-everything and
# server-filesystem programs. mcp_servers_remove removes the prefix; test.sh
# calls it from its exit trap.

MCP_SERVER_EVERYTHING=@modelcontextprotocol/server-everything@2026.8.31
MCP_SERVER_FILESYSTEM=@modelcontextprotocol/server-filesystem@2026.8.31

mcp_servers_install() {
	if ! command -v npm >/dev/null 2>&1; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
			echo "== installing Node.js for the MCP server tests"
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm) >/dev/null
		fi
		if ! command -v npm >/dev/null 2>&1; then
			echo "the MCP server tests need Node.js and npm; install the nodejs and npm packages" >&2
			return 1
		fi
	fi
	MCP_SERVERS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/albedo-mcp-servers.XXXXXX")
	if ! npm install --prefix "$MCP_SERVERS_DIR" --no-audit --no-fund --silent "$MCP_SERVER_EVERYTHING" "$MCP_SERVER_FILESYSTEM" >/dev/null; then
		echo "npm could not install $MCP_SERVER_EVERYTHING and $MCP_SERVER_FILESYSTEM" >&2
		return 1
	fi
	export ALBEDO_TEST_MCP_EVERYTHING="$MCP_SERVERS_DIR/node_modules/.bin/mcp-server-everything"
	export ALBEDO_TEST_MCP_FILESYSTEM="$MCP_SERVERS_DIR/node_modules/.bin/mcp-server-filesystem"
}

mcp_servers_remove() {
	if [ -n "${MCP_SERVERS_DIR:-}" ]; then
		rm -rf "$MCP_SERVERS_DIR"
	fi
}
