package home

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatchedExtensionsFollowTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ExtensionsFile)
	w := WatchExtensions(dir)
	// Each write gets its own modification time, as edits seconds apart
	// would, whatever the file system's clock granularity.
	stamp := time.Unix(1_700_000_000, 0)
	write := func(doc string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		stamp = stamp.Add(time.Second)
		if err := os.Chtimes(path, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		name string
		do   func()
		// want is the "compaction" member read, "" for none; bad means
		// the read fails.
		want string
		bad  bool
	}{
		{name: "no file", do: func() {}},
		{name: "written", do: func() { write(`{"compaction": {"triggerPercent": 80}}`) }, want: `{"triggerPercent": 80}`},
		{name: "unchanged", do: func() {}, want: `{"triggerPercent": 80}`},
		{name: "edited to the same size", do: func() { write(`{"compaction": {"triggerPercent": 70}}`) }, want: `{"triggerPercent": 70}`},
		{name: "caught half-written", do: func() { write(`{"compaction": {"trigg`) }, bad: true},
		{name: "still half-written", do: func() {}, bad: true},
		{name: "finished", do: func() { write(`{"compaction": {"triggerPercent": 60}}`) }, want: `{"triggerPercent": 60}`},
		{name: "removed", do: func() { os.Remove(path) }},
		{name: "written again", do: func() { write(`{"compaction": {"tailPercent": 10}}`) }, want: `{"tailPercent": 10}`},
	} {
		step.do()
		ext, err := w.Read()
		if (err != nil) != step.bad {
			t.Fatalf("%s: error %v; want one: %v", step.name, err, step.bad)
		}
		if got := string(ext["compaction"]); got != step.want {
			t.Fatalf("%s: compaction %q; want %q", step.name, got, step.want)
		}
	}
}
