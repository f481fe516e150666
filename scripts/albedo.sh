#!/usr/bin/env bash
# Builds albedo (see build.sh) and runs it with the given arguments: with
# none, the console on a new session in the current folder.
set -euo pipefail
bin=$(bash "$(dirname "$0")/build.sh")
exec "$bin" "$@"
