package spool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/clip"
)

// DefaultLimit is the default cap, in bytes, of one cell's spool.
const DefaultLimit = 32 << 10

// Spool keeps cells' output under a folder. It is safe for concurrent use.
type Spool struct {
	dir     string
	headMax int
	segMax  int

	mu    sync.Mutex
	cells map[string]*cell
	// made are the session folders made so far.
	made map[string]bool
}

var _ albedo.OutputSpool = (*Spool)(nil)

// cell is where the next bytes of one cell's output go.
type cell struct {
	head   int // bytes in "head"
	seg    int // the tail file being filled
	segLen int // bytes in it
}

// New returns a spool under dir that keeps at most limit bytes of each
// cell (DefaultLimit when limit <= 0). The folder is made on first use.
func New(dir string, limit int) *Spool {
	if limit <= 0 {
		limit = DefaultLimit
	}
	seg := max(limit/4, 1)
	return &Spool{dir: dir, headMax: limit - 2*seg, segMax: seg, cells: make(map[string]*cell), made: make(map[string]bool)}
}

// Append adds text to the cell's spool.
func (s *Spool) Append(_ context.Context, sessionID string, call int64, text string) error {
	base, err := s.cellBase(sessionID, call)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cells[base]
	if c == nil {
		if dir := filepath.Dir(base); !s.made[dir] {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("making the spool of session %s: %w", sessionID, err)
			}
			s.made[dir] = true
		}
		c = &cell{}
		s.cells[base] = c
	}
	data := []byte(text)
	if room := s.headMax - c.head; room > 0 {
		k := min(room, len(data))
		if err := appendFile(base+".head", data[:k], false); err != nil {
			return err
		}
		c.head += k
		data = data[k:]
	}
	for len(data) > 0 {
		if c.segLen == s.segMax {
			c.seg++
			c.segLen = 0
			_ = os.Remove(base + tailName(c.seg-2))
		}
		k := min(s.segMax-c.segLen, len(data))
		if err := appendFile(base+tailName(c.seg), data[:k], c.segLen == 0); err != nil {
			return err
		}
		c.segLen += k
		data = data[k:]
	}
	return nil
}

// Read returns what the cell's spool holds, "" when it has none.
func (s *Spool) Read(_ context.Context, sessionID string, call int64) (string, error) {
	base, err := s.cellBase(sessionID, call)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	head, err := readFile(base + ".head")
	if err != nil {
		return "", err
	}
	segs, err := tails(base)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	out.Write(head)
	if len(segs) > 2 {
		segs = segs[len(segs)-2:]
	}
	if len(segs) > 0 && segs[0] > 0 {
		out.WriteString(clip.Line(int64(segs[0] * s.segMax)))
	}
	for _, n := range segs {
		b, err := readFile(base + tailName(n))
		if err != nil {
			return "", err
		}
		out.Write(b)
	}
	return strings.ToValidUTF8(out.String(), "\uFFFD"), nil
}

// Remove forgets the cell's spool.
func (s *Spool) Remove(_ context.Context, sessionID string, call int64) error {
	base, err := s.cellBase(sessionID, call)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cells[base]
	delete(s.cells, base)
	var segs []int
	switch {
	case c != nil && c.head == 0 && c.segLen == 0:
		return nil // nothing was written
	case c != nil:
		segs = []int{c.seg - 1, c.seg}
	default: // spooled by an earlier process
		if segs, err = tails(base); err != nil {
			return err
		}
	}
	var errs []error
	for _, path := range append([]string{base + ".head"}, tailPaths(base, segs)...) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("removing the spool of call %d: %w", call, err)
	}
	return nil
}

// RemoveSession forgets every cell's spool of a session, and its folder.
func (s *Spool) RemoveSession(_ context.Context, sessionID string) error {
	base, err := s.cellBase(sessionID, 0)
	if err != nil {
		return err
	}
	dir := filepath.Dir(base)
	s.mu.Lock()
	defer s.mu.Unlock()
	for b := range s.cells {
		if filepath.Dir(b) == dir {
			delete(s.cells, b)
		}
	}
	delete(s.made, dir)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing the spool of session %s: %w", sessionID, err)
	}
	return nil
}

// Flush does nothing: each Append reaches the files at once.
func (s *Spool) Flush(context.Context, string) error { return nil }

// cellBase returns the start of the paths of a cell's spool files: they are
// named CALL.head and CALL.tail-N in the session's folder.
func (s *Spool) cellBase(sessionID string, call int64) (string, error) {
	if sessionID == "" || sessionID != filepath.Base(sessionID) || strings.HasPrefix(sessionID, ".") {
		return "", fmt.Errorf("session id %q cannot name a spool folder", sessionID)
	}
	return filepath.Join(s.dir, sessionID, strconv.FormatInt(call, 10)), nil
}

// tailPaths returns the paths of tail files segs.
func tailPaths(base string, segs []int) []string {
	out := make([]string, 0, len(segs))
	for _, n := range segs {
		if n >= 0 {
			out = append(out, base+tailName(n))
		}
	}
	return out
}

// tailName is the suffix of tail file n.
func tailName(n int) string { return ".tail-" + strconv.Itoa(n) }

// tails returns the numbers of a cell's tail files, in order.
func tails(base string) ([]int, error) {
	dir, prefix := filepath.Dir(base), filepath.Base(base)+".tail-"
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the spool %s: %w", dir, err)
	}
	var out []int
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), prefix); ok {
			if i, err := strconv.Atoi(n); err == nil {
				out = append(out, i)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// appendFile appends data to a file, emptying it first when fresh is set.
func appendFile(path string, data []byte, fresh bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fresh {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return fmt.Errorf("opening the spool file %s: %w", path, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("writing the spool file %s: %w", path, err)
	}
	return nil
}

// readFile reads a file; a missing one is empty.
func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the spool file %s: %w", path, err)
	}
	return b, nil
}
