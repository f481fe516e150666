package postgres

import (
	"net/url"
	"strings"
	"testing"
)

// passwordOf returns the password of the URL u, failing the test when it
// has none.
func passwordOf(t testing.TB, u string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	pw, ok := parsed.User.Password()
	if !ok || pw == "" {
		t.Fatalf("the test server's URL has no password")
	}
	return pw
}

// TestRedact checks that connection URLs and strings lose their password
// and keep what says which database they name.
func TestRedact(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"postgres://albedo:s3cret@db.example:5432/albedo?sslmode=require", "postgres://albedo:xxxxx@db.example:5432/albedo?sslmode=require"},
		{"postgres://albedo@db.example/albedo", "postgres://albedo@db.example/albedo"},
		{"postgresql://db.example/albedo?password=s3cret&sslmode=disable", "postgresql://db.example/albedo?password=xxxxx&sslmode=disable"},
		{"host=db.example user=albedo password=s3cret dbname=albedo", "host=db.example user=albedo password=xxxxx dbname=albedo"},
		{"host=db.example password='s3 cret' dbname=albedo", "host=db.example password=xxxxx dbname=albedo"},
		{"postgres://albedo:s3cret@[bad", "(a PostgreSQL URL that cannot be read)"},
	}
	for _, c := range cases {
		got := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Contains(got, "s3") {
			t.Errorf("Redact(%q) = %q still holds the password", c.in, got)
		}
	}
}
