package modelcatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// File is the model catalog kept in one file. It rereads the file only
// when its size or modification time changed. It is safe for concurrent
// use.
type File struct {
	path string

	mu      sync.Mutex
	modTime time.Time
	size    int64
	read    bool
	cat     albedo.Catalog
}

var _ albedo.ModelCatalog = (*File)(nil)

// NewFile returns the catalog kept at path. The file need not exist.
func NewFile(path string) *File { return &File{path: path} }

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// Catalog returns the catalog the file holds now. A missing file is an
// empty catalog; one that cannot be read or is not a catalog is an empty
// catalog whose Problems say why.
func (f *File) Catalog(context.Context) albedo.Catalog {
	info, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return albedo.Catalog{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.read && info.ModTime().Equal(f.modTime) && info.Size() == f.size {
		return f.cat
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return albedo.Catalog{Problems: []string{fmt.Sprintf("the model catalog %s could not be read: %v", f.path, err)}}
	}
	cat, err := Parse(data)
	if err != nil {
		cat = albedo.Catalog{Problems: []string{fmt.Sprintf("the model catalog %s is not usable, so no context window comes from it: %v", f.path, err)}}
	}
	f.cat, f.read, f.modTime, f.size = cat, true, info.ModTime(), info.Size()
	return cat
}

// document is the part of a models.dev catalog albedo reads.
type document map[string]struct {
	API    string `json:"api"`
	Models map[string]struct {
		Limit struct {
			Context float64 `json:"context"`
			Output  float64 `json:"output"`
		} `json:"limit"`
		Modalities struct {
			Input []string `json:"input"`
		} `json:"modalities"`
	} `json:"models"`
}

// Parse decodes a catalog in the models.dev format. Data that is not a
// JSON object of providers is an error.
func Parse(data []byte) (albedo.Catalog, error) {
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return albedo.Catalog{}, fmt.Errorf("not JSON (at byte %d: %v)", syn.Offset, syn)
		}
		return albedo.Catalog{}, fmt.Errorf("not in the models.dev format: %v", err)
	}
	cat := albedo.Catalog{Providers: make(map[string]albedo.CatalogProvider, len(doc))}
	for name, p := range doc {
		cp := albedo.CatalogProvider{API: p.API, Models: make(map[string]albedo.CatalogModel, len(p.Models))}
		for id, m := range p.Models {
			cp.Models[id] = albedo.CatalogModel{
				Context: int64(m.Limit.Context), Output: int64(m.Limit.Output), Input: m.Modalities.Input,
			}
		}
		cat.Providers[name] = cp
	}
	return cat, nil
}
