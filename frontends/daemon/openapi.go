package daemon

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gin-gonic/gin"
)

// route is one operation of the API as the OpenAPI document describes it:
// its bodies are wire types, so the schemas come from the types the daemon
// encodes and the client decodes.
type route struct {
	method, path, summary string
	// query names the query parameters.
	query []string
	// body is the request body's type, nil for none.
	body any
	// status and answer are the success status and body (nil: none).
	status int
	answer any
	// stream says the answer is server-sent events of answer.
	stream bool
}

// routes lists every route NewHandler serves; a test keeps the two equal.
func routes() []route {
	return []route{
		{method: "GET", path: "/health", summary: "Whether the daemon is up, its API version and capabilities", status: 200, answer: wire.Health{}},
		{method: "POST", path: "/shutdown", summary: "Stop the daemon", status: 200, answer: wire.OK{}},
		{method: "GET", path: "/openapi.json", summary: "This document", status: 200, answer: map[string]any{}},
		{method: "GET", path: "/sessions", summary: "Find sessions, most recently updated first (next page: X-Next-Cursor)", query: []string{"q", "workspace", "archived", "limit", "cursor"}, status: 200, answer: []wire.Session{}},
		{method: "POST", path: "/sessions", summary: "Create a session", body: wire.CreateSession{}, status: 201, answer: wire.Session{}},
		{method: "GET", path: "/sessions/{id}", summary: "A session with its last events and glances, or with ?view=configuration its configuration (wire.Config) and ETag", query: []string{"tail", "view"}, status: 200, answer: wire.SessionDetail{}},
		{method: "PATCH", path: "/sessions/{id}", summary: "Rename or archive a session (?view=configuration, If-Match)", query: []string{"view"}, body: wire.ConfigPatch{}, status: 200, answer: wire.Config{}},
		{method: "DELETE", path: "/sessions/{id}", summary: "Delete a session", status: 200, answer: wire.Deleted{}},
		{method: "POST", path: "/sessions/{id}/events", summary: "Send a message", body: wire.Message{}, status: 202, answer: wire.Sent{}},
		{method: "GET", path: "/sessions/{id}/status", summary: "Whether a session runs a turn", status: 200, answer: wire.Status{}},
		{method: "GET", path: "/sessions/{id}/stream", summary: "A session's events as server-sent events (Last-Event-ID resumes)", query: []string{"tail"}, status: 200, answer: wire.EventBatch{}, stream: true},
		{method: "GET", path: "/sessions/{id}/history", summary: "A session's transcript, whole or a page", query: []string{"after", "before", "limit"}, status: 200, answer: wire.History{}},
		{method: "GET", path: "/sessions/{id}/tree", summary: "A page of a session's checkpoints", query: []string{"after", "limit"}, status: 200, answer: wire.TreePage{}},
		{method: "GET", path: "/sessions/{id}/requests", summary: "A page of a session's request ledger, oldest first", query: []string{"after", "limit"}, status: 200, answer: wire.RequestPage{}},
		{method: "GET", path: "/sessions/{id}/context", summary: "How full a session's model context is", status: 200, answer: wire.Context{}},
		{method: "POST", path: "/sessions/{id}/fork", summary: "Branch a session at a checkpoint", body: wire.Fork{}, status: 201, answer: wire.Session{}},
		{method: "POST", path: "/sessions/{id}/interrupt", summary: "Stop a session's turn", status: 200, answer: wire.Status{}},
		{method: "POST", path: "/sessions/{id}/queue/send", summary: "Start a turn on the messages an interrupt left queued", status: 200, answer: wire.Status{}},
		{method: "DELETE", path: "/sessions/{id}/queue/{queue}", summary: "Drop a queued message", status: 200, answer: wire.Deleted{}},
		{method: "POST", path: "/sessions/{id}/workspace", summary: "Move an idle session to another folder", body: wire.MoveWorkspace{}, status: 200, answer: wire.Moved{}},
		{method: "POST", path: "/sessions/{id}/commands", summary: "Run a slash command", body: wire.Command{}, status: 200, answer: wire.CommandResult{}},
		{method: "GET", path: "/extensions/paperclips/items", summary: "A page of the vent ledger, newest first", query: []string{"limit", "cursor"}, status: 200, answer: wire.VentList{}},
		{method: "GET", path: "/extensions/paperclips/items/{vent}", summary: "One vent and its ETag", status: 200, answer: wire.VentResource{}},
		{method: "PATCH", path: "/extensions/paperclips/items/{vent}", summary: "Reply to a vent or set its status (If-Match)", body: wire.VentPatch{}, status: 200, answer: wire.VentPatched{}},
		{method: "DELETE", path: "/extensions/paperclips/items/{vent}", summary: "Delete a vent (If-Match)", status: 200, answer: wire.Deleted{}},
	}
}

// pathParam finds the {name} segments of a path.
var pathParam = regexp.MustCompile(`\{(\w+)\}`)

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
		op["responses"] = map[string]any{
			itoa(r.status): ok,
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
		"servers":    []any{map[string]any{"url": "http://127.0.0.1", "description": "at the port daemon.json names"}},
		"security":   []any{map[string]any{"bearer": []any{}}},
		"paths":      paths,
		"components": map[string]any{"schemas": g.schemas, "securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}}},
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

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
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
