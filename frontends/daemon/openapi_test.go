package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// anyParam makes {id}, {vent} and :id alike, for comparing paths.
var anyParam = regexp.MustCompile(`\{\w+\}|:\w+`)

// operations returns the "METHOD /path" of every operation of a document.
func operations(t *testing.T, doc map[string]any) []string {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		t.Fatalf("the document has no paths: %v", doc)
	}
	var out []string
	for p, item := range paths {
		for method := range item.(map[string]any) {
			out = append(out, strings.ToUpper(method)+" "+anyParam.ReplaceAllString(p, "{}"))
		}
	}
	slices.Sort(out)
	return out
}

// served fetches the daemon's /openapi.json.
func served(t *testing.T) map[string]any {
	t.Helper()
	srv, _ := newTestAPI(t)
	status, doc := call(t, srv, http.MethodGet, "/openapi.json", "", map[string]string{"Authorization": "Bearer " + testToken})
	if status != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d %v", status, doc)
	}
	return doc
}

// TestOpenAPIListsEveryServedRoute: the document /openapi.json serves and
// the router name the same operations, none twice; both are built from
// routes, so a route cannot be served undocumented or documented unserved.
func TestOpenAPIListsEveryServedRoute(t *testing.T) {
	engine := NewHandler(APIOptions{Token: testToken}).(*gin.Engine)
	var servedRoutes []string
	for _, r := range engine.Routes() {
		servedRoutes = append(servedRoutes, r.Method+" "+anyParam.ReplaceAllString(r.Path, "{}"))
	}
	slices.Sort(servedRoutes)
	if len(servedRoutes) != len(routes()) || len(slices.Compact(slices.Clone(servedRoutes))) != len(servedRoutes) {
		t.Errorf("the router serves %d operations %v; routes lists %d, each once", len(servedRoutes), servedRoutes, len(routes()))
	}
	if got := operations(t, served(t)); !slices.Equal(got, servedRoutes) {
		t.Errorf("document operations\n%v\nrouter\n%v", got, servedRoutes)
	}
}

// TestEveryRouteIsComplete: each entry of the route table has what both
// the router and the document need of it.
func TestEveryRouteIsComplete(t *testing.T) {
	for _, r := range routes() {
		where := r.method + " " + r.path
		if r.handle == nil {
			t.Errorf("%s has no handler", where)
		}
		if r.summary == "" {
			t.Errorf("%s has no summary", where)
		}
		if (r.status < 200 || r.status > 299) && r.status != http.StatusSeeOther {
			t.Errorf("%s answers %d on success, want a 2xx (or 303, sending a browser on)", where, r.status)
		}
		if strings.ContainsAny(r.path, ":*") {
			t.Errorf("%s writes a parameter gin's way; write {name}", where)
		}
	}
}

// TestOpenAPIListsEveryRouteOfTheDocs: each route docs/api.md describes
// is in the document.
func TestOpenAPIListsEveryRouteOfTheDocs(t *testing.T) {
	text, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := regexp.MustCompile("(?m)^### `([A-Z]+) (/[^`?]*)").FindAllStringSubmatch(string(text), -1)
	if len(documented) < 10 {
		t.Fatalf("found only %d routes in docs/api.md", len(documented))
	}
	ops := operations(t, served(t))
	for _, m := range documented {
		if op := m[1] + " " + anyParam.ReplaceAllString(m[2], "{}"); !slices.Contains(ops, op) {
			t.Errorf("docs/api.md describes %s, which the document lacks", op)
		}
	}
}

// TestOpenAPIDocumentIsWellFormed checks what OpenAPI 3.1 asks of the
// document: its version and info, a response for every operation, unique
// operation ids, declared path parameters, and references that resolve.
func TestOpenAPIDocumentIsWellFormed(t *testing.T) {
	doc := served(t)
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", doc["openapi"])
	}
	info, _ := doc["info"].(map[string]any)
	if info["title"] == "" || info["title"] == nil || info["version"] == nil {
		t.Errorf("info = %v, needs a title and a version", info)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	ids := map[string]bool{}
	for p, item := range doc["paths"].(map[string]any) {
		if !strings.HasPrefix(p, "/") {
			t.Errorf("path %q does not start with /", p)
		}
		for method, raw := range item.(map[string]any) {
			op := raw.(map[string]any)
			where := strings.ToUpper(method) + " " + p
			id, _ := op["operationId"].(string)
			if id == "" || ids[id] {
				t.Errorf("%s: operationId %q missing or repeated", where, id)
			}
			ids[id] = true
			if responses, _ := op["responses"].(map[string]any); len(responses) == 0 {
				t.Errorf("%s has no responses", where)
			}
			declared := map[string]bool{}
			params, _ := op["parameters"].([]any)
			for _, prm := range params {
				prm := prm.(map[string]any)
				if prm["in"] == "path" {
					declared[prm["name"].(string)] = true
				}
			}
			for _, m := range pathParam.FindAllStringSubmatch(p, -1) {
				if !declared[m[1]] {
					t.Errorf("%s does not declare its path parameter %s", where, m[1])
				}
			}
		}
	}
	refs := regexp.MustCompile(`"\$ref":"#/components/schemas/(\w+)"`).FindAllStringSubmatch(mustJSON(t, doc), -1)
	if len(refs) == 0 {
		t.Fatal("the document refers to no schema")
	}
	for _, m := range refs {
		if _, ok := schemas[m[1]]; !ok {
			t.Errorf("$ref to %s, which components.schemas lacks", m[1])
		}
	}
}

// TestOpenAPISchemasAreTheWireTypes: a body's schema names exactly the
// fields its wire type encodes.
func TestOpenAPISchemasAreTheWireTypes(t *testing.T) {
	schemas := served(t)["components"].(map[string]any)["schemas"].(map[string]any)
	for _, r := range routes() {
		for _, v := range []any{r.body, r.answer} {
			if v == nil || reflect.TypeOf(v).Kind() != reflect.Struct {
				continue
			}
			typ := fmt.Sprintf("%T", v)
			name := typ[strings.LastIndex(typ, ".")+1:]
			schema, ok := schemas[name].(map[string]any)
			if !ok {
				continue // not a named struct: a list or a map
			}
			props, _ := schema["properties"].(map[string]any)
			var got []string
			for k := range props {
				got = append(got, k)
			}
			slices.Sort(got)
			want := slices.Sorted(func(yield func(string) bool) {
				for k := range jsonFields(reflectTypeOf(v)) {
					if !yield(k) {
						return
					}
				}
			})
			if !slices.Equal(got, want) && name != "ErrorBody" {
				t.Errorf("schema %s has %v, its type encodes %v", name, got, want)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func reflectTypeOf(v any) reflect.Type { return reflect.TypeOf(v) }
