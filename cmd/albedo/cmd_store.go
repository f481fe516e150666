package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo/storecopy"
	"github.com/albedo-agent/albedo/frontends/home"
)

// The names albedo store copy takes for a store besides a URL.
const (
	// storeSQLite is the home's albedo.sqlite.
	storeSQLite = "sqlite"
	// storeFromEnv is the database ALBEDO_STORE_URL names, so that the
	// password need not be on the command line.
	storeFromEnv = "postgresql"
)

func runStore(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "store")
	from := fs.String("from", storeSQLite, "the store to copy: sqlite (the home's albedo.sqlite), postgresql (the database ALBEDO_STORE_URL names) or a postgres:// URL")
	to := fs.String("to", "", "the store to copy into, named the same ways")
	if len(args) > 0 && args[0] == "copy" {
		args = args[1:]
	} else if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return usageError{"the one subcommand is copy: albedo store copy [--from STORE] --to STORE"}
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if *to == "" || *to == *from {
		return usageError{"--to names the store to copy into, another than --from"}
	}
	dir, err := e.albedoHome()
	if err != nil {
		return err
	}
	// No daemon may write to the home's stores while they are copied.
	lock, err := home.Lock(dir)
	if err != nil {
		return fmt.Errorf("%w: stop the daemon first (albedo store copy works on a stopped home)", err)
	}
	defer lock.Close()
	source, err := openStore(ctx, dir, *from)
	if err != nil {
		return err
	}
	defer source.Close()
	target, err := openStore(ctx, dir, *to)
	if err != nil {
		return err
	}
	defer target.Close()
	sum, err := storecopy.Copy(ctx, source, target, e.stderr)
	if err != nil {
		return fmt.Errorf("%w (run the same command again to go on from where it stopped)", err)
	}
	fmt.Fprintf(e.stdout, "copied and verified %d sessions, %d items, %d ledger rows and %d vents from %s to %s\n",
		sum.Sessions, sum.Items, sum.Requests, sum.Vents, postgres.Redact(*from), postgres.Redact(*to))
	return nil
}

// openStore opens the store that where names in the home dir.
func openStore(ctx context.Context, dir, where string) (storecopy.Target, error) {
	url := where
	switch {
	case where == storeSQLite:
		s, err := sqlite.Open(ctx, filepath.Join(dir, home.DatabaseFile))
		if err != nil {
			return nil, fmt.Errorf("open the store of home %s: %w", dir, err)
		}
		return s, nil
	case where == storeFromEnv:
		if url = os.Getenv("ALBEDO_STORE_URL"); url == "" {
			return nil, usageError{"postgresql names the database ALBEDO_STORE_URL names, and it is not set"}
		}
	case !strings.HasPrefix(where, "postgres://") && !strings.HasPrefix(where, "postgresql://"):
		return nil, usageError{fmt.Sprintf("%q is not a store: name sqlite, postgresql or a postgres:// URL", postgres.Redact(where))}
	}
	s, err := postgres.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return s, nil
}
