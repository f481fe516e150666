#!/usr/bin/env bash
# Checks that `go install github.com/albedo-agent/albedo/cmd/albedo@VERSION`
# builds a working binary from a clean module cache, as it would for a
# user once the module is published:
#
#   bash scripts/goinstall_check.sh [COMMIT]     (default HEAD)
#
# It packs the files of COMMIT into a module zip at a pseudo-version (with
# golang.org/x/mod/zip, as the module proxy would), serves it from a
# file-system GOPROXY in front of the usual one, installs the command with
# an empty GOMODCACHE (every dependency comes from the module proxy, so it
# needs the network and takes a minute or two) and runs the installed
# binary's --version. The module is not in the checksum database, so
# GONOSUMDB names it; nothing else is relaxed.
set -euo pipefail
cd "$(dirname "$0")/.."
module=github.com/albedo-agent/albedo
commit=$(git rev-parse "${1:-HEAD}")
stamp=$(TZ=UTC git show -s --date=format-local:%Y%m%d%H%M%S --format=%cd "$commit")
when=$(TZ=UTC git show -s --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd "$commit")
version="v0.0.0-$stamp-${commit:0:12}"

work=$(mktemp -d)
cleanup() {
	# The module cache is read-only.
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The packer: a module of its own, so that albedo does not depend on
# golang.org/x/mod.
mkdir -p "$work/pack"
cat >"$work/pack/go.mod" <<'EOF'
module pack

go 1.26

require golang.org/x/mod v0.43.0
EOF
cat >"$work/pack/main.go" <<'EOF'
// Command pack writes the module zip of the module in a folder.
package main

import (
	"log"
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	out, dir, path, version := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	f, err := os.Create(out)
	if err != nil {
		log.Fatal(err)
	}
	m := module.Version{Path: path, Version: version}
	if err := zip.CreateFromDir(f, m, dir); err != nil {
		log.Fatalf("pack %s: %v", m, err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
EOF
proxy="$work/proxy/$module/@v"
mkdir -p "$proxy"
# The commit's files, as the module proxy takes them from the repository.
mkdir -p "$work/src"
git archive "$commit" | tar -x -C "$work/src"
(cd "$work/pack" && GOFLAGS=-mod=mod go run . "$proxy/$version.zip" "$work/src" "$module" "$version")
git show "$commit:go.mod" >"$proxy/$version.mod"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$when" >"$proxy/$version.info"
echo "$version" >"$proxy/list"

echo "== go install $module/cmd/albedo@$version (empty module cache)"
mkdir -p "$work/modcache" "$work/bin"
(cd "$work" && env GOMODCACHE="$work/modcache" GOBIN="$work/bin" GOFLAGS= \
	GOPROXY="file://$work/proxy,$(go env GOPROXY)" GONOSUMDB="$module" \
	go install "$module/cmd/albedo@$version")
"$work/bin/albedo" --version
echo "go install of $version: ok"
