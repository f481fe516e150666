package openai

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestUsageReadsEveryCountAndLeavesMissingOnesNil(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	tests := []struct {
		name     string
		protocol albedo.Protocol
		usage    string
		want     albedo.Usage
	}{
		{"chat with details", albedo.ProtocolChatCompletions,
			`{"prompt_tokens":339,"completion_tokens":83,"prompt_tokens_details":{"cached_tokens":320},"completion_tokens_details":{"reasoning_tokens":39}}`,
			albedo.Usage{InputTokens: n(339), CachedTokens: n(320), OutputTokens: n(83), ReasoningTokens: n(39)}},
		{"chat without details", albedo.ProtocolChatCompletions,
			`{"prompt_tokens":10,"completion_tokens":46,"total_tokens":56}`,
			albedo.Usage{InputTokens: n(10), OutputTokens: n(46)}},
		{"chat reporting zero cached tokens", albedo.ProtocolChatCompletions,
			`{"prompt_tokens":295,"completion_tokens":22,"prompt_tokens_details":{"cached_tokens":0}}`,
			albedo.Usage{InputTokens: n(295), CachedTokens: n(0), OutputTokens: n(22)}},
		{"deepseek's cache hit count", albedo.ProtocolChatCompletions,
			`{"prompt_tokens":19,"completion_tokens":3,"prompt_cache_hit_tokens":12,"prompt_cache_miss_tokens":7}`,
			albedo.Usage{InputTokens: n(19), CachedTokens: n(12), OutputTokens: n(3)}},
		{"responses with details", albedo.ProtocolResponses,
			`{"input_tokens":7112,"input_tokens_details":{"cached_tokens":3072},"output_tokens":463,"output_tokens_details":{"reasoning_tokens":64}}`,
			albedo.Usage{InputTokens: n(7112), CachedTokens: n(3072), OutputTokens: n(463), ReasoningTokens: n(64)}},
		{"responses without details", albedo.ProtocolResponses,
			`{"input_tokens":5,"output_tokens":1}`,
			albedo.Usage{InputTokens: n(5), OutputTokens: n(1)}},
		{"nothing reported", albedo.ProtocolResponses, `null`, albedo.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got albedo.Usage
			if tt.protocol == albedo.ProtocolChatCompletions {
				var u *chatUsage
				if err := json.Unmarshal([]byte(tt.usage), &u); err != nil {
					t.Fatal(err)
				}
				got = u.usage()
			} else {
				var u *responsesUsage
				if err := json.Unmarshal([]byte(tt.usage), &u); err != nil {
					t.Fatal(err)
				}
				got = u.usage()
			}
			if !reflect.DeepEqual(got, tt.want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(tt.want)
				t.Errorf("usage = %s, want %s", gj, wj)
			}
		})
	}
}
