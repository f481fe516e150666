package albedo

import (
	"slices"
	"strings"
	"testing"
)

func TestCompactionRulesUseTheDefaultsForInvalidValues(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name          string
		settings      CompactionSettings
		trigger, tail float64
		problems      int
	}{
		{"absent", CompactionSettings{}, 90, 25, 0},
		{"valid", CompactionSettings{TriggerPercent: p(80), TailPercent: p(30)}, 80, 30, 0},
		{"trigger 100 is allowed", CompactionSettings{TriggerPercent: p(100)}, 100, 25, 0},
		{"trigger above 100", CompactionSettings{TriggerPercent: p(101)}, 90, 25, 1},
		{"negative trigger", CompactionSettings{TriggerPercent: p(-5)}, 90, 25, 1},
		{"tail 0", CompactionSettings{TailPercent: p(0)}, 90, 25, 1},
		{"tail not below the trigger", CompactionSettings{TriggerPercent: p(50), TailPercent: p(50)}, 50, 25, 1},
		{"a small trigger halves the default tail", CompactionSettings{TriggerPercent: p(20)}, 20, 10, 0},
		{"both invalid", CompactionSettings{TriggerPercent: p(0), TailPercent: p(100)}, 90, 25, 2},
		{"unreadable settings", CompactionSettings{Problem: "bad"}, 90, 25, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.settings.Rules()
			if r.Trigger != tc.trigger || r.Tail != tc.tail || len(r.Problems) != tc.problems {
				t.Errorf("rules = %g/%g %q; want %g/%g with %d problems", r.Trigger, r.Tail, r.Problems, tc.trigger, tc.tail, tc.problems)
			}
		})
	}
}

func TestEvictedChunks(t *testing.T) {
	unit := func(n int) []Item {
		return []Item{
			{Kind: KindUser, Text: "question"},
			{Kind: KindToolCall, CallID: "c", ToolName: "python", Arguments: `{"code":"print(1)"}`},
			{Kind: KindToolOutput, CallID: "c", Text: strings.Repeat("o", n)},
			{Kind: KindAssistant, Text: "answer"},
		}
	}
	var items []Item
	for range 10 {
		items = append(items, unit(1000)...)
	}
	huge := append(unit(100), Item{Kind: KindAssistant, Text: strings.Repeat("é", 3000)})
	for _, tc := range []struct {
		name   string
		items  []Item
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
			var joined []Item
			for _, c := range chunks {
				if len(c) == 0 {
					t.Fatal("an empty chunk")
				}
				joined = append(joined, c...)
				var size int64
				for _, it := range c {
					size += EstimateTokens(JsonStringSize(renderItem(it)))
				}
				if tc.limit > 0 && size > tc.limit && len(c) > 1 {
					t.Errorf("a chunk of %d items renders to %d tokens; the limit is %d", len(c), size, tc.limit)
				}
			}
			if !slices.EqualFunc(joined, tc.items, func(a, b Item) bool { return a.Kind == b.Kind && a.Text == b.Text }) {
				t.Error("the chunks are not the items in order")
			}
		})
	}
}
