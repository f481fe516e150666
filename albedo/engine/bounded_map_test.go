package engine

import (
	"slices"
	"strings"
	"testing"
)

func TestBoundedMap(t *testing.T) {
	tests := []struct {
		name string
		// ops: "+k" puts k (its value is the key), "-k" removes k, "~x"
		// removes every key holding x.
		ops  []string
		want []string // the keys kept, oldest first
	}{
		{"keeps what fits", []string{"+a", "+b", "+c"}, []string{"a", "b", "c"}},
		{"forgets the oldest past the limit", []string{"+a", "+b", "+c", "+d"}, []string{"b", "c", "d"}},
		{"a replaced key keeps its place", []string{"+a", "+b", "+a", "+c", "+d"}, []string{"b", "c", "d"}},
		{"a removed key makes room", []string{"+a", "+b", "+c", "-b", "+d"}, []string{"a", "c", "d"}},
		{"removing what is not kept changes nothing", []string{"+a", "-z"}, []string{"a"}},
		{"removeIf forgets every match", []string{"+s1/x", "+s2/x", "+s1/y", "~s1"}, []string{"s2/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBoundedMap[string, string](3)
			for _, op := range tt.ops {
				k := op[1:]
				switch op[0] {
				case '+':
					b.put(k, k)
				case '-':
					b.remove(k)
				case '~':
					b.removeIf(func(key string) bool { return strings.HasPrefix(key, k) })
				}
			}
			if !slices.Equal(b.order, tt.want) {
				t.Errorf("order = %v, want %v", b.order, tt.want)
			}
			if len(b.entries) != len(tt.want) {
				t.Errorf("%d entries, want %d", len(b.entries), len(tt.want))
			}
			for _, k := range tt.want {
				if v, ok := b.get(k); !ok || v != k {
					t.Errorf("get(%q) = %q, %v", k, v, ok)
				}
			}
		})
	}
}
