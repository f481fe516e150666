package postgres

import (
	"net/url"
	"testing"

	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// TestCommitsDoNotWaitForTheFlushUnlessTheURLSaysSo checks the store's
// connections: synchronous_commit is off, as SQLite's WAL at
// synchronous=NORMAL, unless the URL names a setting of its own.
func TestCommitsDoNotWaitForTheFlushUnlessTheURLSaysSo(t *testing.T) {
	database := pgtest.NewDatabase(t)
	with := func(setting string) string {
		u, err := url.Parse(database)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("synchronous_commit", setting)
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, tc := range []struct {
		name, url, want string
	}{
		{"the default", database, "off"},
		{"the URL's", with("on"), "on"},
		{"the URL's other", with("local"), "local"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, tc.url)
			var got string
			if err := s.db.QueryRowContext(t.Context(), "SHOW synchronous_commit").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("synchronous_commit = %q, want %q", got, tc.want)
			}
		})
	}
}
