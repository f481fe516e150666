// Package home knows the files of an albedo home (ALBEDO_HOME): their
// names, the daemon's connection file and its lock. The daemon writes
// them (internal/atomicfile); clients read them.
package home

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// File names under the albedo home.
const (
	DatabaseFile   = "albedo.sqlite"
	ConnectionFile = "daemon.json"
	LogFile        = "daemon.log"
	ConfigFile     = "config.json"
	ExtensionsFile = "extensions.json"
	LockFile       = "daemon.lock"
	// PythonFile remembers the version of each Python interpreter the
	// daemon asked, so that a later daemon knows it at once.
	PythonFile = "python.json"
	// SpoolDir holds what running cells printed, for a restart after a
	// crash.
	SpoolDir = "spool"
	// OwnerFile names this home's daemon in the leases of a PostgreSQL
	// store shared with other daemons, from one run of it to the next.
	OwnerFile = "lease-owner"
	// CheckpointsDir holds the shadow repositories of the workspaces'
	// snapshots (docs/checkpoints.md).
	CheckpointsDir = "checkpoints"
)

// Dir returns the albedo home: $ALBEDO_HOME, or ~/.albedo.
func Dir() (string, error) {
	if dir := os.Getenv("ALBEDO_HOME"); dir != "" {
		return filepath.Abs(dir)
	}
	user, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the albedo home: set ALBEDO_HOME: %w", err)
	}
	return filepath.Join(user, ".albedo"), nil
}

// Connection is the content of daemon.json: how clients reach the daemon.
type Connection struct {
	PID   int    `json:"pid"`
	Port  int    `json:"port"`
	Token string `json:"token"`
}

// ReadConnection reads daemon.json from dir.
func ReadConnection(dir string) (Connection, error) {
	var conn Connection
	path := filepath.Join(dir, ConnectionFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return conn, err
	}
	if err := json.Unmarshal(data, &conn); err != nil {
		return conn, fmt.Errorf("read %s: %w", path, err)
	}
	return conn, nil
}

// Alive reports whether a process with this pid exists.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
