package home

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestCompactionSettings(t *testing.T) {
	show := func(p *float64) string {
		if p == nil {
			return "absent"
		}
		return fmt.Sprint(*p)
	}
	for _, tc := range []struct {
		name, doc     string
		trigger, tail string
		wantErr       bool
	}{
		{"absent", `{}`, "absent", "absent", false},
		{"both", `{"compaction": {"triggerPercent": 80, "tailPercent": 20.5}}`, "80", "20.5", false},
		{"one", `{"compaction": {"tailPercent": 10}}`, "absent", "10", false},
		{"out of range is the domain's to judge", `{"compaction": {"triggerPercent": 500}}`, "500", "absent", false},
		{"wrong type", `{"compaction": {"triggerPercent": "ninety"}}`, "absent", "absent", true},
		{"not an object", `{"compaction": 90}`, "absent", "absent", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ext Extensions
			if err := json.Unmarshal([]byte(tc.doc), &ext); err != nil {
				t.Fatal(err)
			}
			got, err := ext.Compaction()
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v; want one: %v", err, tc.wantErr)
			}
			if show(got.TriggerPercent) != tc.trigger || show(got.TailPercent) != tc.tail {
				t.Errorf("settings %s/%s; want %s/%s", show(got.TriggerPercent), show(got.TailPercent), tc.trigger, tc.tail)
			}
		})
	}
}
