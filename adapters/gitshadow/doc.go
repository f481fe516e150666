// Package gitshadow implements albedo.Checkpoints with the git binary: each
// workspace's snapshots live in a repository of their own under the albedo
// home (DIR/KEY, KEY made of a hash of the workspace's real path and its
// last element), with the workspace as its work tree. Nothing is ever
// written to the workspace's own .git: the shadow has its own objects,
// index and list of snapshots, so the user's commits, index and hooks
// never see it. The first snapshot of a repository starts from a copy of
// its index and so names the user's blobs; borrow.go says why the user's
// gc can never take one a restore needs.
//
// git runs with the system's and the user's configuration ignored
// (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null), no hooks, no
// fsmonitor, no untracked cache, no line-ending conversion and no
// automatic gc; the shadow's configuration names no filter driver, so
// filters a .gitattributes asks for do not run.
//
// A snapshot is the tree of the shadow's index after the paths git reports
// changed since the last one (git ls-files --modified --others with the
// workspace's ignore rules and the shadow's exclusions: large generated
// folders such as node_modules and .venv) are updated in it; a file over
// the size limit is left as the last snapshot had it. Each new tree is
// added to the shadow's list of snapshots (the file "snapshots"). A restore first writes a journal naming the snapshot and the
// paths; Recover replays a journal a crash left, so that a restore lands
// whole.
package gitshadow
