//go:build unix

package openai

import "syscall"

// newChunk returns an empty buffer of capacity size, mapped outside the Go
// heap when the system allows, so that freeChunk returns its memory at once.
func newChunk(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, 0, size)
	}
	return b[:0]
}

// freeChunk returns a chunk of newChunk's to the operating system; a chunk
// from the Go heap is left to the collector.
func freeChunk(b []byte) {
	if cap(b) == 0 {
		return
	}
	// Munmap refuses memory it did not map (the Go heap fallback).
	_ = syscall.Munmap(b[:cap(b)])
}
