package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestReadKeyFromStdin(t *testing.T) {
	tests := []struct {
		name, stdin, want string
		// usage is true when the input is a mistake of the caller.
		usage bool
	}{
		{name: "a line", stdin: "sk-1\nignored\n", want: "sk-1"},
		{name: "no newline, spaces", stdin: "  sk-2  ", want: "sk-2"},
		{name: "nothing", stdin: "", usage: true},
		{name: "a blank line", stdin: " \n", usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			e := &env{stdin: strings.NewReader(tt.stdin), stdout: &out, stderr: &out}
			got, err := readKey(e, "p")
			var ue usageError
			if tt.usage != errors.As(err, &ue) {
				t.Fatalf("readKey: err = %v, want a usage error: %v", err, tt.usage)
			}
			if got != tt.want {
				t.Errorf("readKey = %q, want %q", got, tt.want)
			}
		})
	}
}
