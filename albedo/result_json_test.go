package albedo

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A tool output read for display (its result as stored JSON) shows the
// same event as the output read whole.
func TestDisplayedOutputShowsTheSameEvent(t *testing.T) {
	tests := []struct {
		name   string
		result CellResult
	}{
		{"ok, no trace", CellResult{Status: CellOK, Output: "1\n", DurationMS: 3}},
		{"error with escapes", CellResult{Status: CellError, Output: "a \"b\"\n<c> & \u2028", Error: "Traceback\n", Notes: []string{"n"}}},
		{"interrupted with a trace", CellResult{Status: CellInterrupted, Trace: Trace{
			Activities: []Activity{{Kind: "read", Target: "/w/a"}}, Changes: []Change{{Path: "/w/b"}}}}},
		{"images", CellResult{Status: CellOK, Images: []ImageMeta{{MimeType: "image/png", Width: 1, Height: 2, Bytes: 3}}}},
	}
	for _, tt := range tests {
		whole := Item{Seq: 4, Kind: KindToolOutput, CallID: "c", ToolName: "python", Text: tt.result.Output, Result: &tt.result}
		result, _ := json.Marshal(&tt.result)
		trace, _ := json.Marshal(tt.result.Trace)
		shown := Item{Seq: 4, Kind: KindToolOutput, CallID: "c", ToolName: "python", ResultJSON: string(result), TraceJSON: string(trace)}
		if got, want := EventOf(shown, "print(1)"), EventOf(whole, "print(1)"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n shown %+v\n whole %+v", tt.name, got, want)
		}
	}
}

func TestResultStatus(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"status":"ok","output":""}`, "ok"},
		{`{"status": "error", "output": "x"}`, "error"},
		{`{"output":"x","status":"interrupted"}`, "interrupted"},
		{`{"status":"o\"k"}`, `o"k`},
		{" {\n  \"status\" :\t\"ok\", \"output\": \"\"}", "ok"},
		{`{"statusx":"no","status":"ok"}`, "ok"},
		{`not json`, ""},
	}
	for _, tt := range tests {
		if got := resultStatus(tt.json); got != tt.want {
			t.Errorf("resultStatus(%s) = %q, want %q", tt.json, got, tt.want)
		}
	}
}
