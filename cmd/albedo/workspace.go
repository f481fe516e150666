package main

import (
	"fmt"
	"path/filepath"
)

// workspaceDir returns the absolute path of the folder a session works in:
// dir, or the current folder when dir is empty.
func workspaceDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve workspace %q: %w", dir, err)
	}
	return abs, nil
}
