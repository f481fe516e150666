package gitshadow

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// Diff lists the paths that differ between two snapshots with their line
// counts and patches, cut to bounds: a patch longer than FileBytes is cut
// at a line end and ends with a marker line; once the patches kept reach
// TotalBytes, git is stopped and the later files have no patch.
func (s *Shadows) Diff(ctx context.Context, workspace, from, to string, bounds albedo.DiffBounds) ([]albedo.FileDiff, error) {
	if from == to {
		return nil, nil
	}
	sh, unlock, err := s.open(ctx, workspace)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := sh.kept(from, to); err != nil {
		return nil, err
	}
	changes, err := sh.changes(ctx, from, to)
	if err != nil || len(changes) == 0 {
		return nil, err
	}
	files := make([]albedo.FileDiff, len(changes))
	for i, c := range changes {
		files[i].FileChange = c
	}
	if err := sh.numstat(ctx, from, to, files); err != nil {
		return nil, err
	}
	if err := sh.patches(ctx, from, to, files, bounds); err != nil {
		return nil, err
	}
	return files, nil
}

// diffOptions are the options of every comparison of two snapshots: the
// same order of paths, and nothing run for a file's attributes.
var diffOptions = []string{"-r", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"}

// numstat sets the line counts of files, which are the paths that differ
// between from and to, in git's order.
func (sh *shadow) numstat(ctx context.Context, from, to string, files []albedo.FileDiff) error {
	args := append(append([]string{"diff-tree", "-z", "--numstat"}, diffOptions...), from, to)
	out, err := sh.runBorrowing(ctx, sh.dir+"/index", nil, args...)
	if err != nil {
		return fmt.Errorf("count the changed lines of %s: %w", sh.workspace, err)
	}
	for i, rec := range splitNul(out) {
		if i >= len(files) {
			break
		}
		// "ADDED\tDELETED\tPATH", "-\t-\tPATH" for a binary file.
		f := strings.SplitN(rec, "\t", 3)
		if len(f) < 3 || f[2] != files[i].Path {
			return fmt.Errorf("count the changed lines of %s: git listed %q where %q was expected", sh.workspace, rec, files[i].Path)
		}
		if f[0] == "-" {
			files[i].Binary = true
			continue
		}
		files[i].Added, _ = strconv.Atoi(f[0])
		files[i].Deleted, _ = strconv.Atoi(f[1])
	}
	return nil
}

// patches reads git's patch of from against to, a file after another in
// the order of files, and keeps each within bounds.
func (sh *shadow) patches(ctx context.Context, from, to string, files []albedo.FileDiff, bounds albedo.DiffBounds) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := append(append([]string{"diff-tree", "-p", "--full-index"}, diffOptions...), from, to)
	cmd := sh.command(ctx, sh.dir+"/index", sh.borrowing(), args...)
	var errb bytes.Buffer
	cmd.Stderr = &limited{w: &errb, n: 4 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("compare the files of %s: %w", sh.workspace, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("compare the files of %s: %w", sh.workspace, err)
	}
	complete := cutPatches(bufio.NewReaderSize(stdout, 64<<10), files, bounds)
	if !complete {
		cancel()
	}
	werr := cmd.Wait()
	switch {
	case !complete:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case werr != nil:
		return fmt.Errorf("compare the files of %s: %w: %s", sh.workspace, werr, strings.TrimSpace(errb.String()))
	}
	return nil
}

// cutPatches reads a patch of files (each starting with a "diff --git"
// line) into files' Patch within bounds. It returns false when it stopped
// reading at the bound of the whole.
func cutPatches(r *bufio.Reader, files []albedo.FileDiff, bounds albedo.DiffBounds) bool {
	i := -1
	total := 0
	var patch strings.Builder
	lineStart := true
	done := func() {
		if i >= 0 && i < len(files) {
			files[i].Patch = patch.String()
		}
		patch.Reset()
	}
	for {
		line, err := r.ReadSlice('\n')
		if lineStart && bytes.HasPrefix(line, []byte("diff --git ")) {
			done()
			i++
		}
		lineStart = !errors.Is(err, bufio.ErrBufferFull)
		if i >= 0 && i < len(files) && len(line) > 0 && !files[i].PatchCut {
			switch {
			case total+len(line) > bounds.TotalBytes:
				files[i].PatchCut = true
				endLine(&patch)
				patch.WriteString(PatchCut(fmt.Sprintf("the diff's patches are over %d bytes", bounds.TotalBytes)))
				done()
				for j := i + 1; j < len(files); j++ {
					files[j].PatchCut = true
				}
				return false
			case patch.Len()+len(line) > bounds.FileBytes:
				files[i].PatchCut = true
				endLine(&patch)
				patch.WriteString(PatchCut(fmt.Sprintf("its patch is over %d bytes", bounds.FileBytes)))
			default:
				patch.Write(line)
				total += len(line)
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			done()
			return errors.Is(err, io.EOF)
		}
	}
}

// PatchCut is the line that ends a patch cut short, saying why.
func PatchCut(why string) string {
	return albedo.PatchCutMarker + ": " + why + "\n"
}

// endLine ends the patch's last line, if it is cut within one.
func endLine(patch *strings.Builder) {
	if s := patch.String(); s != "" && !strings.HasSuffix(s, "\n") {
		patch.WriteByte('\n')
	}
}
