#!/usr/bin/env bash
# Lines of product Go code (non-test .go files under albedo/, adapters/,
# frontends/, cmd/ and internal/), per folder, at a base commit and at
# HEAD. The files of features added since the base are counted apart, so
# that what became of the code already there shows:
#
#   scripts/linecount.sh [BASE]      (BASE defaults to 6a1f323, where
#                                     the Simplify issue was filed)
#
# "new" counts the feature files of a folder at HEAD (a folder marked
# "new" holds nothing else); "old code" is HEAD less them, and "change"
# old code less the base. Lines that features added inside older files
# count as old code, so the change it shows is if anything too small.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
base=${1:-6a1f323}

# The files of the features added since 6a1f323: a feature's name, then
# an extended regular expression matching its paths.
features='
mcp         ^adapters/mcp/
mcp         (^|/)(mcp|mcpstatus|cmd_mcp|toolservers)\.go$
mcp         ^albedo/engine/servertools?(_[a-z]+)?\.go$
postgres    ^adapters/postgres/
postgres    ^(albedo|frontends)/storecopy/
postgres    ^cmd/albedo/cmd_store\.go$
skills      ^adapters/projectfiles/(skills|frontmatter)\.go$
skills      ^albedo/(engine/)?skills\.go$
skills      ^adapters/localfs/readdir\.go$
sandbox     ^adapters/landlock/(held|held_linux|held_other|init_linux|limits_linux|mounts_linux|privileges_linux)\.go$
sandbox     ^adapters/pykernel/namespace_(linux|other)\.go$
sandbox     ^adapters/localfs/(beneath|beneath_linux|beneath_other|beneath_unix|root|walk_unix)\.go$
sandbox     ^frontends/daemon/(connlimit|server)\.go$
probe       ^adapters/pykernel/probe\.go$
web         ^frontends/web/
web         (^|/)(web|routes_web|cmd_web)\.go$
web         ^frontends/markup/html\.go$
checkpoints ^adapters/gitshadow/
checkpoints (^|/)(checkpoints?|rewind)(_[a-z]+)?\.go$
leases      (^|/)leases?(_[a-z]+)?\.go$
'

# counts REV prints "file lines" for each product file at REV.
counts() {
	git grep -c -e '' "$1" -- albedo adapters frontends cmd internal |
		sed "s|^$1:||" | grep '\.go:' | grep -v '_test\.go:' | tr ':' ' '
}

{
	echo "$features" | awk 'NF == 2 {print "F", $1, $2}'
	counts "$base" | awk '{print "B", $1, $2}'
	counts HEAD | awk '{print "H", $1, $2}'
} | awk '
function dir(path) { sub(/\/[^\/]*$/, "", path); return path }
$1 == "F" { nf++; fname[nf] = $2; fre[nf] = $3; next }
$1 == "B" { d = dir($2); dirs[d] = 1; base[d] += $3; tb += $3; next }
$1 == "H" {
	d = dir($2); dirs[d] = 1; head[d] += $3; th += $3
	for (i = 1; i <= nf; i++) if ($2 ~ fre[i]) { feat[d] += $3; tf += $3; byf[fname[i]] += $3; break }
}
END {
	printf "%-28s %7s %7s %7s %8s %7s\n", "folder", "'"$base"'", "HEAD", "new", "old code", "change"
	n = 0
	for (d in dirs) list[++n] = d
	for (i = 2; i <= n; i++) { x = list[i]; for (j = i - 1; j >= 1 && list[j] > x; j--) list[j + 1] = list[j]; list[j + 1] = x }
	for (i = 1; i <= n; i++) {
		d = list[i]; old = head[d] - feat[d]
		mark = (base[d] == 0 && old == 0) ? "  new" : ""
		printf "%-28s %7d %7d %7d %8d %+7d%s\n", d, base[d], head[d], feat[d], old, old - base[d], mark
	}
	printf "%-28s %7d %7d %7d %8d %+7d\n", "total", tb, th, tf, th - tf, th - tf - tb
	print ""
	print "feature files at HEAD, by feature:"
	for (f in byf) printf "  %-12s %6d\n", f, byf[f]
}'
