package configfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// Timing of the rereads of a file caught half-written.
const (
	settleWindow = 100 * time.Millisecond
	settlePoll   = 10 * time.Millisecond
)

// File is the configuration kept in one JSON file. It is safe for
// concurrent use; its writes are serialized.
type File struct {
	path string
	// mu serializes read-modify-write cycles.
	mu sync.Mutex
	// pause waits between two reads of a file caught half-written; nil
	// waits settlePoll. Tests set it to act at that moment instead.
	pause func(ctx context.Context) error
}

var _ albedo.ConfigSource = (*File)(nil)

// New returns the configuration kept at path. The file need not exist.
func New(path string) *File {
	return &File{path: path}
}

// Load reads and validates the file afresh. A missing or blank file is an
// empty configuration. A file that does not parse is read again for up to
// 100ms, in case it was caught half-written, before its fault is reported
// as an EConfig error giving the line and column. A provider with an
// unknown protocol or a base URL that is not an absolute http(s) URL is an
// EConfig error naming the provider and the field. Active is returned as
// written, even when it names no provider.
func (f *File) Load(ctx context.Context) (albedo.Config, error) {
	data, doc, err := f.read(ctx)
	if err != nil {
		return albedo.Config{}, err
	}
	if data == nil {
		return albedo.Config{Providers: map[string]albedo.ProviderConfig{}}, nil
	}
	return config(f.path, doc)
}

// read returns the file's contents and their decoding, nil contents for a
// missing or blank file. Contents that are not JSON are read again until
// they are or the settle window has passed. JSON with a member of the wrong
// type is returned at once, with its contents and the fault.
func (f *File) read(ctx context.Context) ([]byte, document, error) {
	deadline := time.Now().Add(settleWindow)
	for {
		if err := ctx.Err(); err != nil {
			return nil, document{}, err
		}
		data, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, document{}, nil
		}
		if err != nil {
			return nil, document{}, albedo.Errorf(albedo.EConfig, "config file %s: %v", f.path, err)
		}
		blank := len(bytes.TrimSpace(data)) == 0
		var doc document
		if !blank {
			doc, err = parse(f.path, data)
		}
		// A type fault is final, but a writer that truncates before it
		// writes leaves the file blank or cut short for a moment.
		if !blank && (err == nil || json.Valid(data)) {
			return data, doc, err
		}
		if time.Now().After(deadline) {
			if blank {
				return nil, document{}, nil
			}
			return nil, document{}, err
		}
		if err := f.wait(ctx); err != nil {
			return nil, document{}, err
		}
	}
}

// wait pauses between two reads of a file caught half-written.
func (f *File) wait(ctx context.Context) error {
	if f.pause != nil {
		return f.pause(ctx)
	}
	t := time.NewTimer(settlePoll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
