package main

import (
	"io"
	"os"
	"slices"
	"syscall"
	"testing"
)

func TestAllowedHostsReadsACommaSeparatedList(t *testing.T) {
	tests := []struct {
		env  string
		want []string
	}{
		{"", nil},
		{"localhost:9000", []string{"localhost:9000"}},
		{" localhost:9000 , albedo.example.internal,,", []string{"localhost:9000", "albedo.example.internal"}},
	}
	for _, tt := range tests {
		if got := allowedHosts(tt.env); !slices.Equal(got, tt.want) {
			t.Errorf("allowedHosts(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestTheReadyPipeReachesNoProgramTheDaemonStarts: the descriptor a
// starting command passes is closed on exec at once (no kernel, helper or
// probe inherits it), and says "ready" with one byte, then closes.
func TestTheReadyPipeReachesNoProgramTheDaemonStarts(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The command's pipe arrives without close-on-exec, as a child's
	// inherited descriptor does.
	fd, err := syscall.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	ready, err := readyPipe(fd)
	if err != nil {
		t.Fatal(err)
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if errno != 0 || flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("descriptor flags %#x (errno %v): not closed on exec", flags, errno)
	}
	ready()
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "\x01" {
		t.Errorf("read %q, %v from the pipe, want one byte then its end", got, err)
	}
	for _, bad := range []int{0, 1, 2} {
		if _, err := readyPipe(bad); err == nil {
			t.Errorf("readyPipe(%d) took a standard stream", bad)
		}
	}
}
