package pykernel

import (
	"bytes"
	"strings"
	"testing"
)

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
