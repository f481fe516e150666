package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LogLimit is the size past which a server's log file is set aside (as
// NAME.log.1, replacing the one before) when the server next starts.
const LogLimit = 1 << 20

// LogPath returns the path of a server's log file in dir: its stderr,
// each start headed by a line.
func LogPath(dir, server string) string {
	return filepath.Join(dir, "mcp-"+sanitize(server)+".log")
}

// openLog opens a server's log file for appending, setting a full one
// aside first, and writes the line heading this start.
func openLog(dir, server string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the log folder: %w", err)
	}
	path := LogPath(dir, server)
	if info, err := os.Stat(path); err == nil && info.Size() > LogLimit {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the server's log: %w", err)
	}
	fmt.Fprintf(f, "--- %s: MCP server %s starting\n", time.Now().UTC().Format(time.RFC3339), server)
	return f, nil
}
