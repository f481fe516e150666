package gitshadow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// benchFiles is how many files the benchmarks' workspace holds; the
// ALBEDO_BENCH_FILES variable changes it.
func benchFiles() int {
	if n, err := strconv.Atoi(os.Getenv("ALBEDO_BENCH_FILES")); err == nil && n > 0 {
		return n
	}
	return 3000
}

// benchWorkspace makes a git repository of n files of about 2 KiB in
// folders of 50, committed, as a project's checkout is.
func benchWorkspace(b *testing.B, n int) string {
	ws := benchFolder(b, n)
	sh(b, ws, "git init -q && git add -A && git -c gc.auto=0 -c maintenance.auto=false -c user.name=u -c user.email=u@x commit -qm init")
	return ws
}

// benchFolder makes a folder of n files of about 2 KiB in folders of 50.
func benchFolder(b *testing.B, n int) string {
	b.Helper()
	ws := b.TempDir()
	body := make([]byte, 2048)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	for i := range n {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", i/50))
		if i%50 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		copy(body, strconv.Itoa(i))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// BenchmarkSnapshotAfterACell is the snapshot after a cell that changed 12
// files of the workspace, the shadow having snapshotted it before.
func BenchmarkSnapshotAfterACell(b *testing.B) {
	ctx := context.Background()
	ws := benchWorkspace(b, benchFiles())
	s := newShadows(b, Limits{})
	if _, err := s.Snapshot(ctx, ws, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for j := range 12 {
			name := filepath.Join(ws, fmt.Sprintf("pkg%03d", j), fmt.Sprintf("f%d.go", j*50))
			if err := os.WriteFile(name, []byte(fmt.Sprintf("changed %d %d\n", i, j)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.Snapshot(ctx, ws, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstSnapshot is a workspace's first snapshot, which records
// every file.
func BenchmarkFirstSnapshot(b *testing.B) {
	ctx := context.Background()
	ws := benchWorkspace(b, benchFiles())
	for b.Loop() {
		b.StopTimer()
		s := newShadows(b, Limits{})
		b.StartTimer()
		if _, err := s.Snapshot(ctx, ws, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnchangedSnapshot is a snapshot of a workspace nothing changed
// in since the last.
func BenchmarkUnchangedSnapshot(b *testing.B) {
	ctx := context.Background()
	ws := benchWorkspace(b, benchFiles())
	s := newShadows(b, Limits{})
	if _, err := s.Snapshot(ctx, ws, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Snapshot(ctx, ws, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHundredCells is the snapshots of 100 cells that each change 12
// files after the first snapshot; it reports the shadow's size on disk
// after them (shadow-MiB) beside the time per cell.
func BenchmarkHundredCells(b *testing.B) {
	ctx := context.Background()
	ws := benchWorkspace(b, benchFiles())
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "checkpoints")
		s, err := New(dir, Limits{})
		if err != nil {
			b.Skip(err)
		}
		if _, err := s.Snapshot(ctx, ws, nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for i := range 100 {
			for j := range 12 {
				name := filepath.Join(ws, fmt.Sprintf("pkg%03d", j), fmt.Sprintf("f%d.go", j*50))
				if err := os.WriteFile(name, []byte(fmt.Sprintf("cell %d changed %d\n", i, j)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := s.Snapshot(ctx, ws, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(duBytes(b, dir))/(1<<20), "shadow-MiB")
		b.StartTimer()
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N*100), "ms/cell")
}

// BenchmarkOverTheFileLimit is a workspace of ALBEDO_BENCH_FILES files
// (not a repository) over a file limit of half that: the first snapshot
// finds it too large (first-ms) and turns snapshots off, and each later
// one (the figure per op) answers that at once.
func BenchmarkOverTheFileLimit(b *testing.B) {
	ctx := context.Background()
	n := benchFiles()
	ws := benchFolder(b, n)
	s := newShadows(b, Limits{MaxFiles: n / 2})
	began := time.Now()
	if _, err := s.Snapshot(ctx, ws, nil); err == nil {
		b.Fatal("a workspace over the limit was snapshotted")
	}
	first := time.Since(began)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Snapshot(ctx, ws, nil); err == nil {
			b.Fatal("snapshots were on again")
		}
	}
	b.ReportMetric(float64(first.Milliseconds()), "first-ms")
}

// duBytes sums the sizes of the files under dir.
func duBytes(b *testing.B, dir string) int64 {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			total += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return total
}
