package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxToolName is the longest function name the providers accept.
const MaxToolName = 64

// hashLength is how many hex digits of the hash a shortened name keeps.
const hashLength = 8

// ToolRef is one tool of one server.
type ToolRef struct{ Server, Tool string }

// String returns the "server/tool" reference the Python binding takes.
func (r ToolRef) String() string { return r.Server + "/" + r.Tool }

// ToolNames names each tool for the model: mcp_<server>_<tool>. A name
// that would hold a character outside [A-Za-z0-9_-], run past MaxToolName,
// or collide with another tool's name is instead the name with each such
// character made "_", cut to fit, and followed by "_" and a short hash of
// "server/tool". A name depends only on its own server and tool and on
// which others collide with it, so the same configuration gives the same
// names across restarts, as replayed transcripts need.
func ToolNames(refs []ToolRef) map[ToolRef]string {
	names := make(map[ToolRef]string, len(refs))
	holders := make(map[string]int, len(refs))
	for _, r := range refs {
		name, exact := plainName(r)
		if !exact {
			name = hashedName(r)
		}
		names[r] = name
		holders[name]++
	}
	// Plain names two tools share, or one a hashed name took, are hashed
	// too; hashed names differ unless their hashes collide.
	for _, r := range refs {
		if holders[names[r]] > 1 {
			names[r] = hashedName(r)
		}
	}
	return names
}

// plainName returns mcp_<server>_<tool> with the characters providers
// refuse made "_", and whether it needed no change at all.
func plainName(r ToolRef) (string, bool) {
	raw := "mcp_" + r.Server + "_" + r.Tool
	clean := sanitize(raw)
	return clean, clean == raw && len(clean) <= MaxToolName
}

// hashedName returns the plain name cut to fit before "_" and the first
// hashLength hex digits of the SHA-256 of "server/tool".
func hashedName(r ToolRef) string {
	sum := sha256.Sum256([]byte(r.String()))
	clean, _ := plainName(r)
	keep := MaxToolName - 1 - hashLength
	if len(clean) > keep {
		clean = clean[:keep]
	}
	return clean + "_" + hex.EncodeToString(sum[:])[:hashLength]
}

// sanitize maps every byte outside [A-Za-z0-9_-] to "_" (a multi-byte
// character becomes one "_" per byte).
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
