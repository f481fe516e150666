package openai

import (
	"runtime"
	"strings"
	"testing"
)

// A textBuffer returns what was written, byte for byte, whether it stayed
// short or went on in chunks, however the fragments fall on their edges.
func TestTextBufferKeepsEveryByte(t *testing.T) {
	tests := []struct {
		name      string
		fragments []string
	}{
		{"nothing", nil},
		{"short", []string{"hello", " ", "world"}},
		{"exactly the inline size", []string{strings.Repeat("a", inlineText)}},
		{"one byte past it", []string{strings.Repeat("a", inlineText), "b"}},
		{"one fragment over several chunks", []string{"x", strings.Repeat("é✓\x00\xff", 3*chunkSize/7)}},
		{"many fragments across chunk edges", repeatFragments(strings.Repeat("y", 16383)+"\n", (inlineText+2*chunkSize)/16384+3)},
	}
	for _, tt := range tests {
		var b textBuffer
		for _, f := range tt.fragments {
			b.WriteString(f)
		}
		want := strings.Join(tt.fragments, "")
		if b.Len() != len(want) {
			t.Errorf("%s: Len = %d, want %d", tt.name, b.Len(), len(want))
		}
		got := b.String()
		if got != want {
			t.Errorf("%s: String is %d bytes, want %d, equal prefix %d", tt.name, len(got), len(want), commonPrefix(got, want))
		}
		if again := b.String(); again != want {
			t.Errorf("%s: a second String differs", tt.name)
		}
		if b.long != nil && b.long.chunks.chunks != nil {
			t.Errorf("%s: String left %d chunks unreleased", tt.name, len(b.long.chunks.chunks))
		}
	}
}

// A long text whose buffer is dropped unread has its chunks released.
func TestDroppedTextBufferReleasesItsChunks(t *testing.T) {
	released := make(chan struct{})
	func() {
		b := new(textBuffer)
		b.WriteString(strings.Repeat("z", inlineText+chunkSize+1))
		chunks := b.long.chunks
		runtime.AddCleanup(b.long, func(c *chunkList) { close(released) }, chunks)
	}()
	// Cleanups run on their own goroutine some time after a collection.
	for range 1000 {
		runtime.GC()
		select {
		case <-released:
			return
		default:
			runtime.Gosched()
		}
	}
	t.Fatal("a dropped buffer's long text was never released")
}

func repeatFragments(f string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
