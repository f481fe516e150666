// Package pykernel runs albedo's Python cells: one persistent python3
// process per session, implementing albedo.Kernel.
//
// # Processes
//
// A session's kernel starts on its first cell, or ahead of it when the
// service warms it (Kernels.Warm, as a turn begins: a cell coming during
// the warm start waits for it and uses its kernel), in the workspace, as
// "python3 -c BOOTSTRAP" in a process group of its own; sys.path starts
// with the working directory, as in an interactive interpreter, once the
// kernel has imported its own modules (a workspace json.py never runs in
// their place). stdin is
// /dev/null, so input() raises EOFError; stdout and stderr share one pipe
// whose bytes, including those of child processes, become the cell's
// output. The kernel program (the files under python/, embedded in the
// binary) arrives over the control pipe, so nothing is written to disk and
// no port is opened; it imports little at start (asyncio, traceback and
// linecache only when first needed). A kernel is stopped by killing its
// process group; a kernel whose control pipe closes (the daemon died, even
// by SIGKILL) kills its own group. A launch with PIDNamespace (the
// sandbox's, in every mode) runs in a PID namespace of its own, led by
// the sandbox helper (see adapters/landlock): when the kernel ends, or the
// daemon dies, Linux kills every process left in it, setsid and nohup ones
// included, and the pids a cell sees are the namespace's. Where the
// machine allows no namespace the kernel runs without one. The
// cells of a session take turns; a cell naming another workspace than the
// previous one first changes the kernel's working directory there.
//
// # Protocol
//
// The daemon and a kernel exchange frames, each a 4-byte big-endian length
// followed by that many bytes: the daemon writes to the kernel's fd 3 and
// reads its fd 4. The first frame is the kernel program, a JSON array of
// [name, source] pairs; every later frame is a JSON object with a "type":
//
//	daemon → kernel  {"type":"run","id":n,"code":..,"cwd":..,"marker":..,"limit":..}
//	                 {"type":"reply","id":n,"result":..} | {"type":"reply","id":n,"error":".."}
//	kernel → daemon  {"type":"ready","pid":..,"python":"3.11.7","executable":..}
//	                 {"type":"call","id":n,"name":..,"args":{..}}
//	                 {"type":"started","id":n}
//	                 {"type":"image","id":n,"mime":..,"data":base64}
//	                 {"type":"job_started","job":n,"pid":..,"dir":..}
//	                 {"type":"job_ended","job":n,"exit":..,"duration_ms":..,"wakes":bool}
//	                 {"type":"job_wake","job":n,"exit":..,"duration_ms":..}
//	                 {"type":"done","id":n,"status":"ok"|"error","value":..,"error":..,
//	                  "exception":..,"trace":{..},"marked":true}
//
// After a cell the kernel writes the run request's random marker to its
// stdout, so the daemon knows where the cell's output ends. A cell may make
// host calls while it runs: the kernel sends "call", the daemon answers
// with "reply" from the cell's Host (albedo.Cell.Host; the latest cell's
// answers calls made between cells), and the awaiting coroutine gets the
// result or a HostError (a RuntimeError) with the error's message. The
// kernel says "started" when it takes a cell: a kernel that dies before
// that ran none of it, and the cell goes once to a fresh kernel. The
// kernel's globals hold the coroutine _host(name, **args) and the functions
// run, jobs and show_image. The kernel keeps no list of host calls: the run
// request carries the cell's (albedo.Cell.HostCalls, such as vent(topic,
// message, suggestion=None, title=None)) whenever they differ from the
// last sent, and each becomes an async global of its name, taking its
// parameters by position or by name; one named like a helper above does
// not replace it (it stays reachable through _host).
//
// # Live output
//
// While a cell runs with a Cell.Output, what it prints is handed to it
// every 50ms (liveInterval), uncut and in order, never splitting a UTF-8
// character; the result's Output is cut as described below.
//
// # Background jobs
//
// run(cmd, *, cwd=None, env=None, timeout=None) starts a command with
// subprocess in a session of its own (so a process group of its own), its
// output going through a pipe to a spool of two files of 512 KiB written in
// turn, under $TMPDIR/albedo-jobs-PID (PID the daemon's). The kernel says "job_started" with
// the job's pid, "job_ended" when its process exits, and "job_wake" when
// nothing read that end (await, wait(), exit_code, stop()); a job ending
// during a cell is judged when the cell ends ("wakes" on the end says a
// wake follows at once). The daemon passes a wake to Options.OnJobEnd,
// counts running jobs (RunningJobs; the daemon's idle reaper spares a
// kernel with any), a job with a wake to pass on counting until OnJobEnd
// returns, and kills every job's process group when the kernel is killed
// or exits, and removes the spool folder (the daemon names it in the
// program frame). Only a pid that is the kernel's child leading its own
// group when the event arrives is ever killed, whatever pid a (forged)
// event names; a kernel in a PID namespace needs none of this, its jobs
// end with it. A kernel whose daemon died kills its jobs' groups before
// its own. A job started at the very moment its kernel is killed may
// escape before its pid is reported.
//
// # Images
//
// show_image(path_or_bytes, mime=None) checks the image (PNG, JPEG, GIF or
// WebP by its header, at most 20 MiB, mime matching, at most 4 a cell),
// raising ValueError otherwise, and sends it as an "image" event. The
// daemon checks it again (albedo.ImageOf) and attaches the cell's images to
// a result whose status is ok: Shown holds them and Images their metadata.
// A cell that ends otherwise attaches none.
//
// # Cells
//
// A cell's code is compiled with top-level await allowed; code that awaits
// runs on the session's persistent event loop. When the last statement is
// an expression, its repr (unless the value is None) is the result's Value
// and is not added to Output. An exception gives status "error" with the
// traceback, from the cell's first frame on and without the kernel's own
// frames. Output keeps the first and last OutputLimit/2 bytes of what the
// cell wrote, with a line "[... N bytes cut ...]" between them; Value and
// Error are capped alike, in characters. A timeout or a cancelled context
// interrupts the cell with SIGINT to the kernel's main thread
// (KeyboardInterrupt; an awaiting cell's task is cancelled), repeated every
// 250ms; a kernel that has not finished the cell 2 seconds later is killed,
// and the result's Notes say so. A kernel that exits during a cell gives
// status "error" saying how it exited. The first result of a fresh kernel
// in a session that had one before is marked Fresh: the kernel reports the
// fact, and the domain decides what the model is told of it.
//
// # Trace
//
// While a cell runs, an audit hook (sys.addaudithook) records, in the
// order first seen and at most 200 of each:
//
//   - activities: {"kind":"read","target":path} for each existing file
//     opened readable without truncation, and {"kind":"write","target":path}
//     for each file opened writable and each path removed, renamed (both
//     names), linked or truncated through the os module;
//   - changes: {"path":path,"kind":"created"|"modified"|"deleted"} for each
//     path opened writable, removed, renamed, linked, truncated or made with
//     os.mkdir, judged by comparing its state before the first such call and
//     after the cell: it appeared (created), disappeared (deleted), or is a
//     file whose mtime, size or inode differ or that was truncated
//     (modified). Directories are only ever created or deleted.
//
// Paths are absolute and normalised, relative ones resolved against the
// working directory of the call (or its dir_fd, through /proc). Skipped:
// directories opened for listing, paths under /proc, /dev and /sys, the
// standard library, lib-dynload, site-packages, the interpreter's prefixes
// (unless one of /, /usr, /usr/local, /opt/homebrew, /opt/local), and any
// path with a __pycache__, site-packages or dist-packages component.
// Importing a module from the workspace reads it. Files changed by child
// processes (a shell command, git) are not traced.
//
// # Environment
//
// A kernel's environment holds only these variables of Options.Env: PATH
// (a default when missing), HOME, USER, LOGNAME, SHELL, TMPDIR, TMP, TEMP,
// TZ, XDG_{CONFIG,CACHE,DATA,STATE}_HOME, XDG_RUNTIME_DIR, LANG, LANGUAGE,
// LC_*, TERM, COLORTERM, NO_COLOR, PYTHONPATH, PYTHONIOENCODING, PYTHONUTF8,
// PYTHONDONTWRITEBYTECODE, PYTHONPYCACHEPREFIX, PYTHONWARNINGS,
// PYTHONHASHSEED, MPLBACKEND, VIRTUAL_ENV, CONDA_PREFIX, CONDA_DEFAULT_ENV,
// PYENV_VERSION, PYENV_ROOT, SSL_CERT_FILE, SSL_CERT_DIR,
// REQUESTS_CA_BUNDLE, HTTP_PROXY, HTTPS_PROXY, NO_PROXY, ALL_PROXY (and
// their lower-case forms), GOPATH, GOROOT, GOCACHE, GOMODCACHE, CARGO_HOME,
// RUSTUP_HOME and JAVA_HOME. A variable named ALBEDO_* or ending in
// _API_KEY, _TOKEN, _SECRET or _PASSWORD is never passed, whatever its case.
package pykernel
