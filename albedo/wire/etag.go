package wire

import (
	"strconv"
	"strings"
)

// ETag is the ETag of a revision, as the daemon sends it.
func ETag(rev int64) string { return `"` + strconv.FormatInt(rev, 10) + `"` }

// ParseETag reads a revision from an ETag or If-Match value ("3", "\"3\""
// or W/"3"); ok is false when it names no revision albedo gives out.
func ParseETag(tag string) (rev int64, ok bool) {
	tag = strings.Trim(strings.TrimPrefix(strings.TrimSpace(tag), "W/"), `"`)
	n, err := strconv.ParseInt(tag, 10, 64)
	return n, err == nil && n > 0
}
