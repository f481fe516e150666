package pykernel

import (
	"bytes"
	"strings"
	"testing"
)

func TestClipBuffer(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{name: "empty", limit: 10, want: ""},
		{name: "fits", limit: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exactly full", limit: 6, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "head and tail", limit: 6, writes: []string{"abcdefghij"}, want: "abc\n[... 4 bytes cut ...]\nhij"},
		{name: "many writes", limit: 4, writes: []string{"a", "b", "c", "d", "e", "f", "g"}, want: "ab\n[... 3 bytes cut ...]\nfg"},
		{name: "tail from a long write", limit: 4, writes: []string{"ab", strings.Repeat("x", 100) + "yz"}, want: "ab\n[... 100 bytes cut ...]\nyz"},
		{name: "runes are not split", limit: 6, writes: []string{"ééééé"}, want: "é\n[... 6 bytes cut ...]\né"},
		{name: "invalid bytes replaced", limit: 10, writes: []string{"a\xffb"}, want: "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newClipBuffer(tt.limit)
			for _, w := range tt.writes {
				b.Write([]byte(w))
			}
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCaptureFindsTheMarkerAcrossChunks(t *testing.T) {
	const marker = "\x00end:XYZ\x00"
	stream := "before\x00almost\x00en" + marker + "after"
	// Split the stream at every pair of points.
	for i := 0; i <= len(stream); i++ {
		for j := i; j <= len(stream); j++ {
			var c capture
			found := c.begin(marker, 100, false)
			for _, chunk := range []string{stream[:i], stream[i:j], stream[j:]} {
				c.write([]byte(chunk))
			}
			select {
			case <-found:
			default:
				t.Fatalf("split %d,%d: marker not found", i, j)
			}
			if got, want := c.end(), "before\x00almost\x00en"; got != want {
				t.Fatalf("split %d,%d: output %q, want %q", i, j, got, want)
			}
		}
	}
}

func TestCaptureDropsOutputBetweenCells(t *testing.T) {
	var c capture
	c.write([]byte("stray"))
	found := c.begin("<M>", 100, false)
	c.write([]byte("cell<M>later"))
	<-found
	c.write([]byte("more stray"))
	if got := c.end(); got != "cell" {
		t.Errorf("output = %q, want %q", got, "cell")
	}
	c.begin("<N>", 100, false)
	c.write([]byte("unfinished<N"))
	if got := c.end(); got != "unfinished<N" {
		t.Errorf("output without a marker = %q", got)
	}
}

func TestClipText(t *testing.T) {
	if got := clipText("short", 10); got != "short" {
		t.Errorf("clipText kept %q", got)
	}
	if got, want := clipText("abcdefghij", 4), "ab\n[... 6 bytes cut ...]\nij"; got != want {
		t.Errorf("clipText = %q, want %q", got, want)
	}
}

func TestLiveOutputStopsAtItsLimit(t *testing.T) {
	var c capture
	c.begin("\x00end\x00", 64, true)
	c.write(bytes.Repeat([]byte("a"), liveLimit-1))
	c.write([]byte("bcd\x00end\x00"))
	live := c.takeLive(false) + c.takeLive(true)
	want := strings.Repeat("a", liveLimit-1) + "b" + "\n[... 2 more bytes not shown live ...]\n"
	if live != want {
		t.Errorf("live output ends %q, want %q", live[len(live)-60:], want[len(want)-60:])
	}
}

func TestLiveOutputKeepsCharactersWhole(t *testing.T) {
	var c capture
	c.begin("\x00end\x00", 64, true)
	c.write([]byte("é")[:1])
	if got := c.takeLive(false); got != "" {
		t.Errorf("half a character went out live: %q", got)
	}
	c.write([]byte("é")[1:])
	if got := c.takeLive(false); got != "é" {
		t.Errorf("takeLive = %q, want é", got)
	}
}
