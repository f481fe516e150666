package albedo_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path every package of this repository starts with.
const module = "github.com/albedo-agent/albedo"

// domainLayers says, for each package under albedo/, which other packages
// under albedo/ it may import. The wire shapes sit beneath the contract,
// the contract (the root: types and ports) beneath the pure rules
// (compaction policy, then the request projection that applies it), and
// those beneath the engine that runs them. A package missing from this
// table fails the test, so a new one is placed in a layer on purpose.
var domainLayers = map[string][]string{
	"albedo/wire":       nil,
	"albedo":            {"albedo/wire"},
	"albedo/compaction": {"albedo", "albedo/wire"},
	"albedo/projection": {"albedo", "albedo/wire", "albedo/compaction"},
	"albedo/engine":     {"albedo", "albedo/wire", "albedo/compaction", "albedo/projection"},
	"albedo/storecopy":  {"albedo", "albedo/wire"},
}

// adapterBans names, for each adapter, the domain packages it must not
// import: a provider adapter decodes and encodes its own wire format and
// never calls into the engine or the request projection.
var adapterBans = map[string][]string{
	"adapters/openai": {"albedo/engine", "albedo/projection"},
}

// TestTheDomainIsLayered keeps albedo/ a domain a reader can take in at
// once: the root package holds the types and ports and imports none of the
// packages that run them; nothing under albedo/ reaches the disk, the
// network, other processes or a database (the ports do); and the provider
// adapter stays beneath the engine.
func TestTheDomainIsLayered(t *testing.T) {
	for _, v := range layerViolations(importsUnder(t, "..", "albedo", "adapters")) {
		t.Error(v)
	}
}

// TestLayerViolations checks that the rules above catch what they are for.
func TestLayerViolations(t *testing.T) {
	clean := map[string][]string{
		"albedo/wire":       {"encoding/json"},
		"albedo":            {"net/url", module + "/albedo/wire"},
		"albedo/compaction": {"crypto/sha256", module + "/albedo"},
		"albedo/projection": {module + "/albedo", module + "/albedo/compaction"},
		"albedo/engine":     {"sync", module + "/albedo", module + "/albedo/projection"},
		"albedo/storecopy":  {"crypto/sha256", module + "/albedo"},
		"adapters/openai":   {"net/http", "os", module + "/albedo"},
	}
	tests := []struct {
		name string
		pkg  string
		imp  string
		want string
	}{
		{"nothing added", "", "", ""},
		{"the root imports the engine", "albedo", module + "/albedo/engine", "albedo imports albedo/engine"},
		{"the wire shapes import the root", "albedo/wire", module + "/albedo", "albedo/wire imports albedo"},
		{"the root imports the projection", "albedo", module + "/albedo/projection", "albedo imports albedo/projection"},
		{"the root imports compaction policy", "albedo", module + "/albedo/compaction", "albedo imports albedo/compaction"},
		{"compaction policy imports the projection", "albedo/compaction", module + "/albedo/projection", "albedo/compaction imports albedo/projection"},
		{"the projection imports the engine", "albedo/projection", module + "/albedo/engine", "albedo/projection imports albedo/engine"},
		{"the engine opens files", "albedo/engine", "os", "albedo/engine imports os"},
		{"the root runs processes", "albedo", "os/exec", "albedo imports os/exec"},
		{"the root dials", "albedo", "net", "albedo imports net"},
		{"the root serves HTTP", "albedo", "net/http", "albedo imports net/http"},
		{"the engine makes system calls", "albedo/engine", "syscall", "albedo/engine imports syscall"},
		{"the root reads raw memory", "albedo", "unsafe", "albedo imports unsafe"},
		{"the engine queries a database", "albedo/engine", "database/sql", "albedo/engine imports database/sql"},
		{"the provider adapter calls the engine", "adapters/openai", module + "/albedo/engine", "adapters/openai imports albedo/engine"},
		{"the provider adapter projects requests", "adapters/openai", module + "/albedo/projection", "adapters/openai imports albedo/projection"},
		{"a package in no layer", "albedo/extra", "fmt", "albedo/extra is not placed in a layer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imports := map[string][]string{}
			for pkg, imps := range clean {
				imports[pkg] = slices.Clone(imps)
			}
			if tt.pkg != "" {
				imports[tt.pkg] = append(imports[tt.pkg], tt.imp)
			}
			got := layerViolations(imports)
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("violations = %q; want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
				t.Fatalf("violations = %q; want one starting %q", got, tt.want)
			}
		})
	}
}

// layerViolations lists what breaks the layering in imports, which maps a
// package (its folder from the repository root) to the paths it imports.
func layerViolations(imports map[string][]string) []string {
	var found []string
	for pkg, imps := range imports {
		if pkg != "albedo" && !strings.HasPrefix(pkg, "albedo/") {
			for _, ban := range adapterBans[pkg] {
				if slices.Contains(imps, module+"/"+ban) {
					found = append(found, fmt.Sprintf("%s imports %s: an adapter stays beneath the engine and the projection", pkg, ban))
				}
			}
			continue
		}
		allowed, placed := domainLayers[pkg]
		if !placed {
			found = append(found, fmt.Sprintf("%s is not placed in a layer: add it to domainLayers", pkg))
		}
		for _, imp := range imps {
			if banned(imp) {
				found = append(found, fmt.Sprintf("%s imports %s: the domain reaches the disk, the network, processes and databases only through its ports", pkg, imp))
			}
			inner, ok := strings.CutPrefix(imp, module+"/")
			if ok && (inner == "albedo" || strings.HasPrefix(inner, "albedo/")) && !slices.Contains(allowed, inner) {
				found = append(found, fmt.Sprintf("%s imports %s: it may import only %v under albedo/", pkg, inner, allowed))
			}
		}
	}
	for pkg := range domainLayers {
		if _, ok := imports[pkg]; !ok {
			found = append(found, fmt.Sprintf("domainLayers names %s, which has no Go files", pkg))
		}
	}
	slices.Sort(found)
	return found
}

// banned reports whether the domain may not import the standard package
// imp. net/url and net/netip only parse and hold values, so they stay
// allowed.
func banned(imp string) bool {
	switch imp {
	case "net/url", "net/netip":
		return false
	case "os", "net", "syscall", "unsafe", "database/sql", "io/fs", "io/ioutil", "plugin":
		return true
	}
	for _, root := range []string{"os/", "net/", "syscall/", "database/sql/", "golang.org/x/sys/"} {
		if strings.HasPrefix(imp, root) {
			return true
		}
	}
	return false
}

// importsUnder reads the imports of the non-test Go files, on every
// platform, in the folders dirs of the repository whose root is repo. Each
// package is named by its folder relative to repo.
func importsUnder(t *testing.T, repo string, dirs ...string) map[string][]string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(repo, "go.mod")); err != nil {
		t.Fatalf("%s is not the repository root: %v", repo, err)
	}
	imports := map[string][]string{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(repo, dir), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && d.Name() == "testdata":
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(repo, filepath.Dir(p))
			if err != nil {
				return err
			}
			pkg := filepath.ToSlash(rel)
			if _, seen := imports[pkg]; !seen {
				imports[pkg] = []string{}
			}
			for _, spec := range f.Imports {
				imp, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					return err
				}
				if !slices.Contains(imports[pkg], imp) {
					imports[pkg] = append(imports[pkg], imp)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("reading the imports under %s: %v", filepath.Join(repo, dir), err)
		}
	}
	return imports
}
