package daemon

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gin-gonic/gin"
)

// OpenAPI returns the API's OpenAPI 3.1 document.
func OpenAPI(version string) map[string]any {
	g := schemaGen{schemas: map[string]any{}}
	errRef := g.schema(reflect.TypeOf(wire.ErrorBody{}))
	paths := map[string]any{}
	for _, r := range routes() {
		op := map[string]any{"summary": r.summary, "operationId": operationID(r)}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(r.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range r.query {
			params = append(params, map[string]any{"name": q, "in": "query", "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			op["parameters"] = params
		}
		if r.body != nil {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(r.body))}}}
		}
		media := "application/json"
		if r.stream {
			media = "text/event-stream"
		}
		ok := map[string]any{"description": http.StatusText(r.status)}
		if r.answer != nil {
			ok["content"] = map[string]any{media: map[string]any{"schema": g.schema(reflect.TypeOf(r.answer))}}
		}
		if r.media != "" {
			ok["content"] = map[string]any{r.media: map[string]any{"schema": map[string]any{"type": "string"}}}
		}
		switch r.access {
		case openAccess:
			op["security"] = []any{}
		case pageAccess:
			op["security"] = []any{map[string]any{"bearer": []any{}}, map[string]any{"cookie": []any{}}}
		}
		op["responses"] = map[string]any{
			strconv.Itoa(r.status): ok,
			"default": map[string]any{"description": "An error: its code says which (see docs/api.md)",
				"content": map[string]any{"application/json": map[string]any{"schema": errRef}}},
		}
		item, _ := paths[r.path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[r.path] = item
		}
		item[strings.ToLower(r.method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "albedo", "version": version,
			"description": "albedo's local HTTP API. Every request carries Authorization: Bearer <token from daemon.json>. docs/api.md says what each route does."},
		"servers":  []any{map[string]any{"url": "http://127.0.0.1", "description": "at the port daemon.json names"}},
		"security": []any{map[string]any{"bearer": []any{}}},
		"paths":    paths,
		"components": map[string]any{"schemas": g.schemas, "securitySchemes": map[string]any{
			"bearer": map[string]any{"type": "http", "scheme": "bearer"},
			"cookie": map[string]any{"type": "apiKey", "in": "cookie", "name": "albedo-PORT", "description": "the web page's login cookie (docs/web.md); writes need the page's Origin and a JSON body"}}},
	}
}

// operationID names an operation after its method and path.
func operationID(r route) string {
	id := strings.ToLower(r.method)
	for _, part := range strings.Split(strings.Trim(r.path, "/"), "/") {
		part = strings.Trim(strings.NewReplacer("{", "", "}", "", ".", "_").Replace(part), "_")
		if part != "" {
			id += "_" + part
		}
	}
	return id
}

// schemaGen derives JSON Schemas from Go types by their JSON encoding,
// keeping each named struct once under components.
type schemaGen struct {
	schemas map[string]any
}

var (
	rawMessage = reflect.TypeOf(json.RawMessage(nil))
	errorBody  = reflect.TypeOf(wire.ErrorBody{})
)

// schema returns the schema of t, a $ref for a named struct.
func (g *schemaGen) schema(t reflect.Type) map[string]any {
	switch {
	case t == rawMessage:
		return map[string]any{"description": "any JSON value"}
	case t.Kind() == reflect.Pointer:
		inner := g.schema(t.Elem())
		return map[string]any{"oneOf": []any{inner, map[string]any{"type": "null"}}}
	case t.Kind() == reflect.Struct && t.Name() != "":
		name := t.Name()
		if _, done := g.schemas[name]; !done {
			g.schemas[name] = map[string]any{} // stops recursion
			if t == errorBody {
				g.schemas[name] = map[string]any{"type": "object", "required": []any{"error", "code"},
					"properties":           map[string]any{"error": map[string]any{"type": "string"}, "code": map[string]any{"type": "string"}},
					"additionalProperties": true}
			} else {
				g.schemas[name] = g.object(t)
			}
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		return g.object(t)
	}
	return map[string]any{}
}

// object is the schema of a struct's JSON object.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []any
	fields := jsonFields(t)
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		f := fields[name]
		props[name] = g.schema(f.Type)
		if !strings.Contains(f.Tag.Get("json"), ",omitempty") {
			required = append(required, name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if required != nil {
		out["required"] = required
	}
	return out
}

// jsonFields returns the fields encoding/json writes for t, by name.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

func (a *api) openAPI(c *gin.Context) {
	c.JSON(http.StatusOK, OpenAPI(a.version))
}
