package mcp

import (
	"encoding/json"
	"testing"
)

func TestRepairSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no schema at all becomes an empty object", `null`, `{"properties":{},"type":"object"}`},
		{"a root without type is an object", `{"properties":{"a":{"type":"string"}}}`,
			`{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{"a root that is not an object is replaced", `{"type":"array","items":{}}`, `{"properties":{},"type":"object"}`},
		{"$schema and $id go, everywhere", `{"$schema":"x","$id":"y","type":"object","properties":{"a":{"$id":"z","type":"string"}}}`,
			`{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{"a local $ref is inlined and the definitions dropped",
			`{"type":"object","$defs":{"p":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/p"},"b":{"type":"array","items":{"$ref":"#/$defs/p"}}}}`,
			`{"properties":{"a":{"type":"integer"},"b":{"items":{"type":"integer"},"type":"array"}},"type":"object"}`},
		{"draft-07 definitions too, with the ref's siblings winning",
			`{"type":"object","definitions":{"p":{"type":"integer","description":"old"}},"properties":{"a":{"$ref":"#/definitions/p","description":"new"}}}`,
			`{"properties":{"a":{"description":"new","type":"integer"}},"type":"object"}`},
		{"a recursive $ref stops at the depth limit with the empty schema",
			`{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"head":{"$ref":"#/$defs/n"}}}`,
			""},
		{"a remote $ref becomes the empty schema", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
			`{"properties":{"a":{}},"type":"object"}`},
		{"an array without items gets the empty one, inside anyOf too",
			`{"type":"object","properties":{"a":{"type":"array"},"b":{"anyOf":[{"type":["array","null"]},{"type":"string"}]}}}`,
			`{"properties":{"a":{"items":{},"type":"array"},"b":{"anyOf":[{"items":{},"type":["array","null"]},{"type":"string"}]}},"type":"object"}`},
		{"other keywords are kept as they are",
			`{"type":"object","required":["a"],"additionalProperties":false,"properties":{"a":{"type":"string","enum":["x","y"],"default":"x"}}}`,
			`{"additionalProperties":false,"properties":{"a":{"default":"x","enum":["x","y"],"type":"string"}},"required":["a"],"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in any
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			got := RepairSchema(in)
			raw, _ := json.Marshal(got)
			if tt.want != "" && string(raw) != tt.want {
				t.Errorf("RepairSchema(%s)\n = %s\nwant %s", tt.in, raw, tt.want)
			}
			checkRepaired(t, got)
		})
	}
}

// checkRepaired fails the test when a schema holds what providers refuse:
// a root that is not an object, a $ref, definitions, $schema, $id, or an
// array without items.
func checkRepaired(t *testing.T, schema map[string]any) {
	t.Helper()
	if schema["type"] != "object" {
		t.Errorf("the root is not an object: %v", schema)
	}
	if _, ok := schema["properties"].(map[string]any); !ok {
		t.Errorf("the root has no properties: %v", schema)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, key := range []string{"$ref", "$defs", "definitions", "$schema", "$id"} {
				if _, ok := v[key]; ok {
					t.Errorf("a node keeps %s: %v", key, v)
				}
			}
			if hasType(v, "array") {
				if _, ok := v["items"]; !ok {
					t.Errorf("an array without items: %v", v)
				}
			}
			for _, member := range v {
				walk(member)
			}
		case []any:
			for _, member := range v {
				walk(member)
			}
		}
	}
	walk(schema)
}

func TestRepairSchemaLeavesItsInputAlone(t *testing.T) {
	in := map[string]any{"type": "object", "$schema": "x", "properties": map[string]any{"a": map[string]any{"type": "array"}}}
	RepairSchema(in)
	if _, ok := in["$schema"]; !ok {
		t.Error("RepairSchema changed its input")
	}
	if _, ok := in["properties"].(map[string]any)["a"].(map[string]any)["items"]; ok {
		t.Error("RepairSchema changed its input's array")
	}
}
