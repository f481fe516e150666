package compaction

import (
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestEvictedChunks(t *testing.T) {
	unit := func(n int) []albedo.Item {
		return []albedo.Item{
			{Kind: albedo.KindUser, Text: "question"},
			{Kind: albedo.KindToolCall, CallID: "c", ToolName: "python", Arguments: `{"code":"print(1)"}`},
			{Kind: albedo.KindToolOutput, CallID: "c", Text: strings.Repeat("o", n)},
			{Kind: albedo.KindAssistant, Text: "answer"},
		}
	}
	var items []albedo.Item
	for range 10 {
		items = append(items, unit(1000)...)
	}
	huge := append(unit(100), albedo.Item{Kind: albedo.KindAssistant, Text: strings.Repeat("é", 3000)})
	for _, tc := range []struct {
		name   string
		items  []albedo.Item
		limit  int64
		chunks int
	}{
		{"no window: one chunk", items, 0, 1},
		{"everything fits", items, 100000, 1},
		{"split between items: three units of ~280 tokens a chunk", items, 1000, 4},
		{"an item larger than the limit is a chunk of its own", huge, 500, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunks := EvictedChunks(tc.items, tc.limit)
			if len(chunks) != tc.chunks {
				t.Errorf("%d chunks; want %d", len(chunks), tc.chunks)
			}
			var joined []albedo.Item
			for _, c := range chunks {
				if len(c) == 0 {
					t.Fatal("an empty chunk")
				}
				joined = append(joined, c...)
				var size int64
				for _, it := range c {
					size += albedo.EstimateTokens(JsonStringSize(renderItem(it)))
				}
				if tc.limit > 0 && size > tc.limit && len(c) > 1 {
					t.Errorf("a chunk of %d items renders to %d tokens; the limit is %d", len(c), size, tc.limit)
				}
			}
			if !slices.EqualFunc(joined, tc.items, func(a, b albedo.Item) bool { return a.Kind == b.Kind && a.Text == b.Text }) {
				t.Error("the chunks are not the items in order")
			}
		})
	}
}
