package client

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stringConsts returns the string constants declared in a Go file whose
// names start with prefix, by value.
func stringConsts(t *testing.T, path, prefix string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || !strings.HasPrefix(name.Name, prefix) {
					continue
				}
				v, _ := strconv.Unquote(lit.Value)
				out[v] = name.Name
			}
		}
	}
	return out
}

// TestClientCodesAreTheDomains checks that the client package names every
// error code the domain has, and no other.
func TestClientCodesAreTheDomains(t *testing.T) {
	domain := stringConsts(t, "../../albedo/errors.go", "E")
	names := stringConsts(t, "codes.go", "Code")
	if len(domain) == 0 {
		t.Fatal("found no error codes in albedo/errors.go")
	}
	for code, name := range domain {
		if _, ok := names[code]; !ok {
			t.Errorf("the client names no code for albedo.%s (%q)", name, code)
		}
	}
	for code, name := range names {
		if _, ok := domain[code]; !ok {
			t.Errorf("client.%s (%q) is no code of the domain", name, code)
		}
	}
	if t.Failed() {
		t.Logf("domain codes: %q", slices.Sorted(maps.Keys(domain)))
	}
}
