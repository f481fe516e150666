package compose

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/frontends/home"
	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// DefaultLeaseTTL is how long a daemon's lease on a session's turn lives
// unrenewed where several daemons share a PostgreSQL store: a turn whose
// daemon died resumes on another within about this long.
const DefaultLeaseTTL = 10 * time.Second

// sharedLeases returns the leases of this albedo on a PostgreSQL store,
// which other daemons may share: named by opts.Node, or the host name,
// and owned by the home dir's owner name (home.OwnerFile, made on first
// use), so that the next run of the home's daemon gives up at once the
// leases this one held when it died, and resumes their turns itself.
func sharedLeases(ctx context.Context, store *postgres.Store, opts Options, dir string, log *slog.Logger) (*postgres.Leases, error) {
	node := opts.Node
	if node == "" {
		node, _ = os.Hostname()
	}
	ttl := opts.LeaseTTL
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	owner, err := homeOwner(dir)
	if err != nil {
		return nil, err
	}
	leases := store.Leases(owner, node, ttl)
	if err := leases.ReleaseAll(ctx); err != nil {
		return nil, err
	}
	log.Info("sharing the store", "node", node, "owner", owner, "lease", ttl)
	return leases, nil
}

// homeOwner returns the owner name kept in the home dir, making it first
// when there is none.
func homeOwner(dir string) (string, error) {
	path := filepath.Join(dir, home.OwnerFile)
	data, err := os.ReadFile(path)
	if owner := strings.TrimSpace(string(data)); err == nil && owner != "" {
		return owner, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the lease owner of home %s: %w", dir, err)
	}
	owner := postgres.NewOwner()
	if err := atomicfile.Write(path, []byte(owner+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write the lease owner of home %s: %w", dir, err)
	}
	return owner, nil
}
