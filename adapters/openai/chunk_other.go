//go:build !unix

package openai

// newChunk returns an empty buffer of capacity size.
func newChunk(size int) []byte { return make([]byte, 0, size) }

// freeChunk leaves a chunk to the collector.
func freeChunk([]byte) {}
