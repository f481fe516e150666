//go:build !linux

package mcp

import "syscall"

// namespaceAttrs offers no PID namespace where Linux's are not.
func namespaceAttrs(*syscall.SysProcAttr) []*syscall.SysProcAttr { return nil }
