package procs

import (
	"runtime"
	"testing"
)

// TestOneUntilDefault checks that the program starts on one processor and
// that Default gives back the runtime's choice, or the environment's.
func TestOneUntilDefault(t *testing.T) {
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("at start GOMAXPROCS = %d, want 1", got)
	}
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	tests := []struct {
		env  string
		want int
	}{
		{"", def},
		{"3", 3},
		{"12", 12},
		{"0", def},
		{"-2", def},
		{"two", def},
		{"1234567", def},
	}
	for _, tt := range tests {
		runtime.GOMAXPROCS(1)
		Default(tt.env)
		if got := runtime.GOMAXPROCS(0); got != tt.want {
			t.Errorf("Default(%q): GOMAXPROCS = %d, want %d", tt.env, got, tt.want)
		}
	}
	runtime.SetDefaultGOMAXPROCS()
}
