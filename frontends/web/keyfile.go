package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// KeyFile is the file of the albedo home that holds the key the page's
// cookies are signed with (mode 0600). A new key revokes every cookie.
const KeyFile = "web.key"

// keyBytes is the length of a signing key.
const keyBytes = 32

// ReadKey returns the signing key kept in dir, making one when there is
// none (or it is not a key), so that cookies outlive a daemon's restart.
func ReadKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, KeyFile)
	data, err := os.ReadFile(path)
	if err == nil {
		if key, err := hex.DecodeString(strings.TrimSpace(string(data))); err == nil && len(key) == keyBytes {
			return key, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the web page's key: %w", err)
	}
	return NewKey(dir)
}

// NewKey makes a new signing key and keeps it in dir, in place of the
// old one.
func NewKey(dir string) ([]byte, error) {
	key := make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("make the web page's key: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, KeyFile), []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("keep the web page's key: %w", err)
	}
	return key, nil
}
