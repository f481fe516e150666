package postgres

import (
	"net/url"
	"regexp"
	"strings"
)

// keywordPassword finds the password of a key=value connection string,
// quoted or not.
var keywordPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// Redact returns the connection URL or string u without its password, for
// log lines and error messages: a postgres:// URL keeps its user, host,
// database and parameters (but a password parameter), a key=value string
// every key but password. What cannot be read is replaced whole.
func Redact(u string) string {
	if !strings.Contains(u, "://") {
		return keywordPassword.ReplaceAllString(u, "${1}xxxxx")
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return "(a PostgreSQL URL that cannot be read)"
	}
	if parsed.User != nil {
		if _, has := parsed.User.Password(); has {
			parsed.User = url.UserPassword(parsed.User.Username(), "xxxxx")
		}
	}
	if q := parsed.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		parsed.RawQuery = q.Encode()
	}
	return parsed.String()
}
