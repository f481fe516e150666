// Package landlock confines albedo's Python kernels with Linux Landlock:
// an unprivileged restriction a process puts on itself and that every
// process it starts inherits. The daemon itself is never restricted.
//
// # How a kernel is confined
//
// Sandbox.Confine turns the command line of a kernel into one that runs a
// helper first, "albedo-sandbox SPEC -- python3 ..." (cmd/albedo-sandbox)
// or "albedo sandbox-exec SPEC -- python3 ..." (albedo's own binary): that
// short-lived helper (HelperMain) restricts itself as SPEC says and then
// execs the interpreter, which keeps the restriction, as does every cell
// and every process a cell starts. The ruleset is applied to the one OS
// thread that calls execve, as go-landlock's NewRulesetFD describes. SPEC, one JSON argument, carries
// the Landlock ABI to use and the resolved paths; the helper computes the
// rules itself, so the command line stays short however many rules there
// are.
//
// # The helper is held
//
// The helper runs unconfined, so New takes it once (holdProgram): albedo's
// own running binary is named /proc/self/exe, any other helper is copied
// into a sealed memfd named /proc/self/fd/N; a kernel's command line names
// that, never the file, so a cell that replaces or rewrites the file
// changes no later kernel. A helper that cannot be held is refused
// wherever a kernel may write it.
//
// # A PID namespace per kernel
//
// Confined says PIDNamespace: the caller starts the helper as the first
// process of a PID namespace of its own (also in mode off, where the spec
// restricts nothing). The helper, seeing it is pid 1, starts itself again
// as the namespace's second process, in a mount namespace of its own with
// a /proc of the namespace, which confines itself and execs Python as
// above; the first stays to reap what cells leave behind, pass the
// daemon's SIGINT to the kernel's main thread, and exit with the kernel's
// status (128 plus the signal's number for a signal's death), or at once
// on SIGHUP, the daemon's death signal. Linux then kills every process
// left in the namespace.
//
// # Masks and TMPDIR
//
// In its own mount namespace, before Landlock, the kernel's helper mounts
// an empty read-only folder or file over each hidden path that exists and
// a tmpfs on the kernel's TMPDIR (setUpMounts): in the kernel a hidden path
// leads to nothing of the user's, whose modes, owners, times and
// attributes stay out of reach too, and no other kernel sees its
// temporary files.
//
// # Limits
//
// The helper also bounds the kernel (applyLimits): its processes and
// threads (RLIMIT_NPROC, or for root the PID namespace's pid_max), each
// process's data memory (RLIMIT_DATA) and its TMPDIR's size, as the
// policy's limits say.
//
// # What the rules grant
//
// Landlock only grants: everything it handles is refused unless a rule
// allows it for a file hierarchy. The helper grants reading (and running)
// everything, writing in the writable folders (the workspace unless the
// mode is read-only, the kernel's own TMPDIR and the policy's writable
// folders), and writing to /dev/null, /dev/zero, /dev/full and /dev/tty.
// A hidden path (albedo's home, the credential folders) is kept out of a
// grant by granting, instead of the folder that holds it, each entry of
// that folder but the one leading to the hidden path, down to the hidden
// path's own folder (see carve). The price: the folders along the way
// (often /, /tmp or the user's home) cannot be listed, what appears in
// them after the kernel started cannot be opened, and each of their
// entries is a rule, so a hidden path in a crowded folder (a home under a
// /tmp of hundreds of entries) makes the start slower.
//
// # What Landlock cannot do, by ABI
//
// The protections are named in SandboxStatus.Enforced and NotEnforced:
//
//	filesystem_writes      ABI 1  writing, creating, removing outside the writable folders
//	hidden_reads           ABI 1  reading the hidden paths
//	file_truncation        ABI 3  truncate(2) of files outside the writable folders
//	tcp                    ABI 4  TCP connect and bind (network false)
//	device_ioctl           ABI 5  ioctl on devices
//	signals                ABI 6  signals to processes outside the sandbox
//	abstract_unix_sockets  ABI 6  abstract UNIX sockets outside the sandbox
//	unix_sockets           ABI 9  pathname UNIX sockets outside the sandbox (network false)
//	udp                    ABI 10 UDP bind, connect and send (network false)
//	mptcp                  never  Multipath TCP sockets (network false)
//
// A kernel whose ABI is older (or that has no Landlock, or an OS without
// it) gets what its ABI allows, and NotEnforced lists the rest; with
// "required": true Confine refuses instead, and no cell runs. stat(2),
// chmod(2), chown(2), utime(2) and the like are never restricted by
// Landlock: the masks below keep them from the hidden paths. The helper
// also sets no_new_privs, so setuid programs (sudo) do not gain rights, and
// drops every capability, so a kernel started by root is root by user id
// only (dropCapabilities); ProtectDaemon keeps the daemon's own /proc
// files from its user's other programs.
package landlock
