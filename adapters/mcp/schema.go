package mcp

import (
	"encoding/json"
	"slices"
	"strings"
)

// maxRefDepth bounds how deep references are inlined into one another; a
// reference deeper than that (a recursive type) becomes the empty schema,
// which accepts anything.
const maxRefDepth = 8

// RepairSchema returns a copy of a tool's input schema that the providers
// accept: the root an object with properties, no $schema or $id, local
// $refs ("#/...") inlined and their definitions dropped, other references
// made the empty schema, and every array given items. The server still
// validates what it is sent, so loosening a schema never lets a call
// through that the server would refuse.
func RepairSchema(schema any) map[string]any {
	root, ok := normalize(schema).(map[string]any)
	if !ok {
		root = map[string]any{}
	}
	r := repairer{root: root}
	out, _ := r.node(root, 0).(map[string]any)
	if _, typed := out["type"]; out == nil || typed && !hasType(out, "object") {
		out = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	out["type"] = "object"
	if _, ok := out["properties"].(map[string]any); !ok {
		out["properties"] = map[string]any{}
	}
	return out
}

// normalize turns any JSON-shaped Go value into maps, slices and scalars
// through a JSON round trip; a value that does not encode becomes nil.
func normalize(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// repairer repairs the nodes of one schema, resolving references against
// its root.
type repairer struct{ root map[string]any }

// schemaLists are the members holding a list of schemas.
var schemaLists = []string{"anyOf", "oneOf", "allOf", "prefixItems"}

// schemaMaps are the members holding schemas by name.
var schemaMaps = []string{"properties", "patternProperties"}

// schemaOne are the members holding one schema.
var schemaOne = []string{"additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"}

// node returns the repaired copy of one schema node; depth counts the
// references inlined on the way to it.
func (r repairer) node(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // true, false, or a value where a schema was expected
	}
	if ref, ok := m["$ref"].(string); ok {
		resolved := r.resolve(ref, depth)
		merged := map[string]any{}
		if rm, ok := resolved.(map[string]any); ok {
			for k, v := range rm {
				merged[k] = v
			}
		}
		for k, v := range m {
			if k != "$ref" {
				merged[k] = r.member(k, v, depth) // siblings of $ref win
			}
		}
		delete(merged, "$defs")
		delete(merged, "definitions")
		delete(merged, "$schema")
		delete(merged, "$id")
		return r.withItems(merged)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "$schema", "$id", "$defs", "definitions", "$anchor", "$dynamicAnchor", "$comment":
			continue
		}
		out[k] = r.member(k, v, depth)
	}
	return r.withItems(out)
}

// member repairs the value of member k of a schema node.
func (r repairer) member(k string, v any, depth int) any {
	switch {
	case slices.Contains(schemaLists, k):
		list, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(list))
		for i, s := range list {
			out[i] = r.node(s, depth)
		}
		return out
	case slices.Contains(schemaMaps, k):
		named, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(named))
		for name, s := range named {
			out[name] = r.node(s, depth)
		}
		return out
	case k == "items":
		if list, ok := v.([]any); ok { // the old tuple form
			out := make([]any, len(list))
			for i, s := range list {
				out[i] = r.node(s, depth)
			}
			return out
		}
		return r.node(v, depth)
	case slices.Contains(schemaOne, k):
		return r.node(v, depth)
	}
	return v
}

// withItems gives an array schema that lacks items the empty one.
func (r repairer) withItems(m map[string]any) map[string]any {
	if hasType(m, "array") {
		if _, ok := m["items"]; !ok {
			m["items"] = map[string]any{}
		}
	}
	return m
}

// resolve returns the repaired target of a reference: a local JSON
// pointer into the root, or the empty schema for anything else, a
// pointer to nothing, or one nested past maxRefDepth.
func (r repairer) resolve(ref string, depth int) any {
	if depth >= maxRefDepth || !strings.HasPrefix(ref, "#") {
		return map[string]any{}
	}
	var target any = r.root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch t := target.(type) {
		case map[string]any:
			target = t[part]
		default:
			target = nil
		}
		if target == nil {
			return map[string]any{}
		}
	}
	return r.node(target, depth+1)
}

// hasType reports whether a schema's type is kind, or a list holding it.
func hasType(m map[string]any, kind string) bool {
	switch t := m["type"].(type) {
	case string:
		return t == kind
	case []any:
		for _, one := range t {
			if one == kind {
				return true
			}
		}
	}
	return false
}
