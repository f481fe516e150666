package landlock

import (
	"encoding/json"
	"fmt"
	"os"
)

// Spec is what the helper restricts itself to: the SPEC argument of
// "albedo sandbox-exec SPEC -- PROGRAM ARGS...". Paths are absolute and
// resolved.
type Spec struct {
	// ABI is the Landlock ABI to use; 0 restricts nothing.
	ABI int `json:"abi"`
	// Network false refuses what the ABI can of the network.
	Network bool `json:"network"`
	// Required makes any protection the ABI cannot apply an error.
	Required bool `json:"required"`
	// Writable are the folders that may be written, but for what they
	// hold of the hidden paths.
	Writable []string `json:"writable"`
	// Own are folders that may be written even inside a hidden path: the
	// kernel's own.
	Own []string `json:"own,omitempty"`
	// Hidden are the paths that may not be read, whether they exist yet
	// or not.
	Hidden []string `json:"hidden"`
	// Temp is the kernel's own TMPDIR, where the helper mounts a tmpfs
	// of at most TempMiB (0: no bound) in the kernel's mount namespace.
	Temp    string `json:"temp,omitempty"`
	TempMiB int    `json:"temp_mib,omitempty"`
	// Processes bounds the kernel's processes and threads, MemoryMiB each
	// one's data memory (see applyLimits); 0 for no bound.
	Processes int `json:"processes,omitempty"`
	MemoryMiB int `json:"memory_mib,omitempty"`
	// Off is mode off: the helper only runs the kernel in its PID
	// namespace, and restricts nothing, privileges included.
	Off bool `json:"off,omitempty"`
	// UID and GID are the daemon's user and group. Started unprivileged in
	// a user namespace of its own with no ids mapped yet, the helper maps
	// them to themselves (see mapOwnIDs).
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// devices are the files every program expects to write, granted unless
// missing.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// grants returns the rules of a spec: read everything, write the writable
// folders and the devices, none of it reaching a hidden path.
func (s Spec) grants() []grant {
	out := carve("/", false, s.Hidden, nil)
	for _, w := range s.Writable {
		out = carve(w, true, s.Hidden, out)
	}
	for _, own := range s.Own {
		if info, err := os.Stat(own); err == nil {
			out = append(out, grant{Path: own, Write: true, Dir: info.IsDir()})
		}
	}
	for _, d := range devices {
		if _, err := os.Stat(d); err == nil && !covered(d, s.Hidden) {
			out = append(out, grant{Path: d, Write: true})
		}
	}
	return out
}

// encode returns the spec as the helper's argument.
func (s Spec) encode() string {
	data, err := json.Marshal(s)
	if err != nil {
		panic("landlock: encoding a spec: " + err.Error()) // strings, ints and bools always encode
	}
	return string(data)
}

// decodeSpec reads the helper's argument.
func decodeSpec(arg string) (Spec, error) {
	var s Spec
	if err := json.Unmarshal([]byte(arg), &s); err != nil {
		return s, fmt.Errorf("reading the sandbox spec: %w", err)
	}
	return s, nil
}
