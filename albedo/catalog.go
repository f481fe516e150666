package albedo

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Catalog is a model catalog in the models.dev format: providers by name,
// each with its API's base URL and its models by id.
type Catalog struct {
	Providers map[string]CatalogProvider
	// Problems say in words what is wrong with the catalog, such as a file
	// that is not JSON; a catalog with problems may still hold models.
	Problems []string
}

// CatalogProvider is one provider of a model catalog.
type CatalogProvider struct {
	// API is the provider's base URL, "" when the catalog gives none.
	API    string
	Models map[string]CatalogModel
}

// CatalogModel is what a catalog says of one model.
type CatalogModel struct {
	// Context and Output are the model's context window and output limit
	// in tokens, 0 when unknown.
	Context int64
	Output  int64
	// Input lists the modalities the model reads, such as "text".
	Input []string
}

// ModelCatalog gives the current model catalog. It is called for every
// lookup, so implementations should be cheap when nothing changed.
type ModelCatalog interface {
	Catalog(ctx context.Context) Catalog
}

// catalogMatch is one catalog model that may be the session's.
type catalogMatch struct {
	provider, key string
	api           string
	window        int64
}

// LookupWindow finds the context window of model, served at baseURL, in
// cat. A catalog model matches when its key equals model or its key's last
// "/" segment does. Where several match, those whose provider's api has
// the host and port of baseURL win. When the candidates left still
// disagree, the window is unknown (0) and problem says why; a model the
// catalog does not know is 0 with no problem.
func LookupWindow(cat Catalog, model, baseURL string) (window int64, problem string) {
	if model == "" {
		return 0, ""
	}
	var matches []catalogMatch
	for pname, p := range cat.Providers {
		for key, m := range p.Models {
			if key != model && key[strings.LastIndexByte(key, '/')+1:] != model {
				continue
			}
			if m.Context <= 0 {
				continue
			}
			matches = append(matches, catalogMatch{provider: pname, key: key, api: p.API, window: m.Context})
		}
	}
	if len(matches) == 0 {
		return 0, ""
	}
	if host := hostPort(baseURL); host != "" {
		var same []catalogMatch
		for _, m := range matches {
			if hostPort(m.api) == host {
				same = append(same, m)
			}
		}
		if len(same) > 0 {
			matches = same
		}
	}
	for _, m := range matches[1:] {
		if m.window != matches[0].window {
			return 0, collision(model, matches)
		}
	}
	return matches[0].window, ""
}

// collision describes catalog models that disagree about a window.
func collision(model string, matches []catalogMatch) string {
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = fmt.Sprintf("%s/%s (%d)", m.provider, m.key, m.window)
	}
	slices.Sort(names)
	return fmt.Sprintf("the model catalog has several models named %q with different context windows: %s; set \"contextWindow\" for the provider in config.json",
		model, strings.Join(names, ", "))
}

// hostPort returns the host and port of a URL, the port filled in from
// its scheme, or "" when it is not an absolute URL.
func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}
