package albedo_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// TestCellResultJSON: a cell result is written in the API's form, in its
// order (status first), with duration_ms always present, and reads back
// as it was; what only the domain holds (shown images, trace, freshness)
// is not part of it.
func TestCellResultJSON(t *testing.T) {
	tests := []struct {
		name   string
		result albedo.CellResult
		want   string
	}{
		{"bare", albedo.CellResult{Status: albedo.CellOK}, `{"status":"ok","output":"","duration_ms":0}`},
		{"every field", albedo.CellResult{Status: albedo.CellError, Output: "o", Value: "v", Error: "e", Notes: []string{"n"}, DurationMS: 12,
			Images: []albedo.ImageMeta{{MimeType: "image/png", Width: 1, Height: 2, Bytes: 3}}},
			`{"status":"error","output":"o","value":"v","error":"e","notes":["n"],"duration_ms":12,"images":[{"mimeType":"image/png","width":1,"height":2,"bytes":3}]}`},
		{"domain only", albedo.CellResult{Status: albedo.CellInterrupted, Fresh: true, Shown: []*albedo.Image{{MimeType: "image/png"}},
			Trace: albedo.Trace{Changes: []albedo.Change{{Path: "/w/a"}}}}, `{"status":"interrupted","output":"","duration_ms":0}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []any{tc.result, &tc.result} {
				got, err := json.Marshal(v)
				if err != nil || string(got) != tc.want {
					t.Errorf("json.Marshal(%T) = %s, %v; want %s", v, got, err, tc.want)
				}
			}
			var api wire.CellResult
			if err := json.Unmarshal([]byte(tc.want), &api); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(api); string(again) != tc.want {
				t.Errorf("the API's form is %s; the domain writes %s", again, tc.want)
			}
			var back albedo.CellResult
			if err := json.Unmarshal([]byte(tc.want), &back); err != nil {
				t.Fatal(err)
			}
			want := tc.result
			want.Shown, want.Trace, want.Fresh = nil, albedo.Trace{}, false
			if !reflect.DeepEqual(back, want) {
				t.Errorf("read back %+v; want %+v", back, want)
			}
		})
	}
	var r albedo.CellResult
	if err := json.Unmarshal([]byte(`{"status":1}`), &r); err == nil {
		t.Error("a result whose status is a number is read")
	}
}
