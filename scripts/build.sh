#!/usr/bin/env bash
# Builds bin/albedo the way albedo is meant to run, and prints its path.
#
# The flags make the CLI start faster, which every command pays for:
#   CGO_ENABLED=0    a static binary: no dynamic loader at start, and no C
#                    toolchain needed to build it;
#   -tags nomsgpack  leaves out gin's MessagePack codec, which albedo does
#                    not speak and whose packages take time to initialise.
# `go build ./cmd/albedo` without them makes a binary that works the same,
# only starts slower.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
CGO_ENABLED=0 go build -tags nomsgpack -ldflags "-X main.version=$version" -o bin/albedo ./cmd/albedo
# The sandbox helper the daemon starts each Python kernel through (see
# adapters/landlock); without it beside bin/albedo, albedo re-executes
# itself, which works the same and starts slower.
CGO_ENABLED=0 go build -o bin/albedo-sandbox ./cmd/albedo-sandbox
echo "$PWD/bin/albedo"
