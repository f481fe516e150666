package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// workspaceDir returns the absolute path of the folder a session works in:
// dir, or the current folder when dir is empty.
func workspaceDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the current folder: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve workspace %s: %w", dir, err)
	}
	return abs, nil
}
