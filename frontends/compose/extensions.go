package compose

import (
	"context"
	"path/filepath"

	"github.com/albedo-agent/albedo/adapters/modelcatalog"
	"github.com/albedo-agent/albedo/adapters/projectfiles"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/home"
)

// extensions returns the project instructions and the model catalog that
// opts and the home's extensions.json ask for, and the catalog's
// refresher (nil when it never fetches). dir is the home, "" for none.
func extensions(opts Options, dir string) (albedo.InstructionSource, albedo.ModelCatalog, *modelcatalog.Refresher) {
	ext := home.Extensions{}
	if dir != "" {
		var err error
		if ext, err = home.ReadExtensions(dir); err != nil {
			warn(opts, "extension settings ignored", err)
			ext = home.Extensions{}
		}
	}
	instructions := opts.ProjectInstructions
	if instructions == nil {
		enabled, err := ext.InstructionsEnabled()
		if err != nil {
			warn(opts, "instruction settings ignored", err)
		}
		if enabled {
			instructions = projectfiles.New(dir, hiddenPaths(dir))
		}
	}
	if opts.Catalog != nil || dir == "" {
		return instructions, opts.Catalog, nil
	}
	path := filepath.Join(dir, home.CatalogFile)
	settings, err := ext.Models()
	if err != nil {
		warn(opts, "model catalog settings ignored", err)
	}
	var refresher *modelcatalog.Refresher
	if settings.Refresh > 0 {
		refresher = &modelcatalog.Refresher{Path: path, URL: settings.URL, Every: settings.Refresh, Logger: opts.Logger}
	}
	return instructions, modelcatalog.NewFile(path), refresher
}

// warn logs a problem with the settings, if there is a logger.
func warn(opts Options, msg string, err error) {
	if opts.Logger != nil {
		opts.Logger.Warn(msg, "err", err)
	}
}

// startRefresh runs the catalog's refresher, if any, until Shutdown.
func (a *Assembly) startRefresh(r *modelcatalog.Refresher) {
	ctx, stop := context.WithCancel(context.Background())
	a.stopRefresh, a.refreshed = stop, make(chan struct{})
	go func() {
		defer close(a.refreshed)
		if r != nil {
			r.Run(ctx)
		}
	}()
}
