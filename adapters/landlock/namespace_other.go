//go:build !linux

package landlock

import "syscall"

// NamespaceAttrs returns none: PID namespaces are Linux's, and the
// program starts without one.
func NamespaceAttrs(*syscall.SysProcAttr) []*syscall.SysProcAttr { return nil }
