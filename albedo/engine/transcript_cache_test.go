package engine

import (
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// An idle session keeps its transcript and its projection only while
// both together stay under bigTranscript; a long transcript goes too.
func TestTranscriptCacheKeepsNoMoreThanItsBound(t *testing.T) {
	item := func(seq int64, size int) albedo.Item {
		return albedo.Item{Seq: seq, Kind: albedo.KindUser, Text: string(make([]byte, size))}
	}
	tests := []struct {
		name                     string
		items                    []albedo.Item
		keepsItems, keepsProject bool
	}{
		{"small: both kept", []albedo.Item{item(1, 1000)}, true, true},
		{"together over the bound: the projection goes", []albedo.Item{item(1, bigTranscript/2+1000)}, true, false},
		{"a long transcript: both go", []albedo.Item{item(1, bigTranscript+1)}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c transcriptCache
			c.items, c.valid = tt.items, true
			for _, it := range tt.items {
				c.bytes += itemBytes(it)
			}
			c.projected.project(tt.items, nil, albedo.Endpoint{Protocol: albedo.ProtocolChatCompletions})
			c.forgetIfBig()
			if _, ok := c.cached(); ok != tt.keepsItems {
				t.Errorf("keeps the transcript: %v, want %v", ok, tt.keepsItems)
			}
			if kept := c.projected.size() > 0; kept != tt.keepsProject {
				t.Errorf("keeps the projection: %v, want %v", kept, tt.keepsProject)
			}
		})
	}
}
