package landlock

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// tree makes files (names ending in "/" are folders) under a new folder
// and returns its resolved path.
func tree(t testing.TB, names ...string) string {
	t.Helper()
	root := realPath(t.TempDir())
	for _, name := range names {
		path := filepath.Join(root, name)
		if name[len(name)-1] == '/' {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCarveGrantsEverythingButTheHiddenPaths(t *testing.T) {
	root := tree(t, "home/.ssh/id", "home/.bashrc", "home/src/a.go", "home/.config/gcloud/creds", "home/.config/git/config", "etc/hostname", "albedo/config.json")
	if err := os.Symlink(filepath.Join(root, "albedo"), filepath.Join(root, "home", "link-to-albedo")); err != nil {
		t.Fatal(err)
	}
	at := func(rel string) string { return filepath.Join(root, rel) }
	tests := []struct {
		name   string
		hidden []string
		want   []grant
	}{
		{name: "nothing hidden grants the root", hidden: nil, want: []grant{{Path: root, Dir: true}}},
		{
			name:   "hidden paths elsewhere grant the root",
			hidden: []string{"/nowhere/else"},
			want:   []grant{{Path: root, Dir: true}},
		},
		{
			name:   "siblings along the way, links skipped",
			hidden: []string{at("albedo"), at("home/.ssh"), at("home/.config/gcloud")},
			want: []grant{
				{Path: at("etc"), Dir: true},
				{Path: at("home/.bashrc")},
				{Path: at("home/.config/git"), Dir: true},
				{Path: at("home/src"), Dir: true},
			},
		},
		{
			name:   "a hidden file",
			hidden: []string{at("home/.ssh/id")},
			want: []grant{
				{Path: at("albedo"), Dir: true},
				{Path: at("etc"), Dir: true},
				{Path: at("home/.bashrc")},
				{Path: at("home/.config"), Dir: true},
				{Path: at("home/src"), Dir: true},
			},
		},
		{name: "the root hidden grants nothing", hidden: []string{root}, want: nil},
		{name: "a parent of the root hidden grants nothing", hidden: []string{filepath.Dir(root)}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := carve(root, false, tt.hidden, nil)
			slices.SortFunc(got, func(a, b grant) int {
				if a.Path < b.Path {
					return -1
				}
				return 1
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("grants:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCarveKeepsTheAccessAsked(t *testing.T) {
	root := tree(t, "ws/src/", "ws/.albedo/config.json")
	got := carve(filepath.Join(root, "ws"), true, []string{filepath.Join(root, "ws", ".albedo")}, nil)
	want := []grant{{Path: filepath.Join(root, "ws", "src"), Write: true, Dir: true}}
	if !slices.Equal(got, want) {
		t.Errorf("grants = %+v, want %+v", got, want)
	}
}

func TestRealPathResolvesLinksOfMissingPaths(t *testing.T) {
	root := tree(t, "real/")
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "real"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{link, filepath.Join(root, "real")},
		{filepath.Join(link, "missing", "file"), filepath.Join(root, "real", "missing", "file")},
		{filepath.Join(root, "real", "..", "link"), filepath.Join(root, "real")},
	}
	for _, tt := range tests {
		if got := realPath(tt.in); got != tt.want {
			t.Errorf("realPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSpecGrantsTheKernelsOwnFoldersEvenWhenHidden(t *testing.T) {
	root := tree(t, "albedo/spool/", "albedo/config.json", "ws/")
	spec := Spec{Writable: []string{filepath.Join(root, "ws")}, Own: []string{filepath.Join(root, "albedo", "spool")}, Hidden: []string{filepath.Join(root, "albedo")}}
	got := spec.grants()
	for _, want := range []grant{
		{Path: filepath.Join(root, "ws"), Write: true, Dir: true},
		{Path: filepath.Join(root, "albedo", "spool"), Write: true, Dir: true},
	} {
		if !slices.Contains(got, want) {
			t.Errorf("grants lack %+v", want)
		}
	}
	for _, g := range got {
		if g.Path == filepath.Join(root, "albedo") || g.Path == filepath.Join(root, "albedo", "config.json") || within(root, g.Path) {
			t.Errorf("grant %+v reaches the hidden home", g)
		}
	}
}
