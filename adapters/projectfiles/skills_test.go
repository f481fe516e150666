package projectfiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// skillFile is a SKILL.md naming skill name with description.
func skillFile(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

func TestSkillsFoundAndRanked(t *testing.T) {
	tooBig := skillFile("big", "too big", strings.Repeat("x", 2<<20))
	tests := []struct {
		name      string
		files     map[string]string // in the repository
		home      map[string]string
		workspace string
		want      []string // name=source: description
		warnings  []string
	}{
		{"none", map[string]string{".git/HEAD": ""}, nil, "", nil, nil},
		{"every folder, in order", map[string]string{
			".git/HEAD":                        "",
			".claude/skills/c/SKILL.md":        skillFile("c", "from claude", ""),
			".agents/skills/a/SKILL.md":        skillFile("a", "from agents", ""),
			".albedo/skills/b/SKILL.md":        skillFile("b", "from albedo", ""),
			".agents/skills/not-a-skill/x.txt": "",
		}, map[string]string{"skills/h/SKILL.md": skillFile("h", "mine", "")}, "",
			[]string{"h=ALBEDO_HOME/skills/h/SKILL.md: mine", "b=.albedo/skills/b/SKILL.md: from albedo", "a=.agents/skills/a/SKILL.md: from agents", "c=.claude/skills/c/SKILL.md: from claude"}, nil},
		{"the user's own wins a name, then .albedo, .agents, .claude", map[string]string{
			".git/HEAD":                   "",
			".claude/skills/x/SKILL.md":   skillFile("x", "claude", ""),
			".agents/skills/x/SKILL.md":   skillFile("x", "agents", ""),
			".albedo/skills/x/SKILL.md":   skillFile("x", "albedo", ""),
			".claude/skills/y/SKILL.md":   skillFile("y", "claude", ""),
			".agents/skills/y/SKILL.md":   skillFile("y", "agents", ""),
			".albedo/skills/zed/SKILL.md": skillFile("zed", "albedo", ""),
		}, map[string]string{"skills/x/SKILL.md": skillFile("x", "mine", "")}, "",
			[]string{"x=ALBEDO_HOME/skills/x/SKILL.md: mine", "zed=.albedo/skills/zed/SKILL.md: albedo", "y=.agents/skills/y/SKILL.md: agents"},
			[]string{
				".agents/skills/x/SKILL.md was skipped: the skill x of ALBEDO_HOME/skills/x/SKILL.md comes first",
				".albedo/skills/x/SKILL.md was skipped: the skill x of ALBEDO_HOME/skills/x/SKILL.md comes first",
				".claude/skills/x/SKILL.md was skipped: the skill x of ALBEDO_HOME/skills/x/SKILL.md comes first",
				".claude/skills/y/SKILL.md was skipped: the skill y of .agents/skills/y/SKILL.md comes first",
			}},
		{"the workspace's folder wins over the repository root's", map[string]string{
			".git/HEAD":                    "",
			".agents/skills/x/SKILL.md":    skillFile("x", "root", ""),
			"ws/.claude/skills/x/SKILL.md": skillFile("x", "workspace", ""),
		}, nil, "ws",
			[]string{"x=ws/.claude/skills/x/SKILL.md: workspace"},
			[]string{".agents/skills/x/SKILL.md was skipped: the skill x of ws/.claude/skills/x/SKILL.md comes first"}},
		{"a 2 MiB SKILL.md and one not UTF-8 are skipped", map[string]string{
			".git/HEAD":                   "",
			".agents/skills/big/SKILL.md": tooBig,
			".agents/skills/bad/SKILL.md": skillFile("bad", "caf\xe9", ""),
			".agents/skills/ok/SKILL.md":  skillFile("ok", "fine", ""),
		}, nil, "",
			[]string{"ok=.agents/skills/ok/SKILL.md: fine"},
			[]string{".agents/skills/bad/SKILL.md was skipped: it is not UTF-8 text", ".agents/skills/big/SKILL.md was skipped: it is over 1 MiB"}},
		{"broken front matter is reported", map[string]string{
			".git/HEAD":                        "",
			".agents/skills/none/SKILL.md":     "# no front matter\n",
			".agents/skills/open/SKILL.md":     "---\nname: open\n",
			".agents/skills/other/SKILL.md":    skillFile("another", "misnamed", ""),
			".agents/skills/nodesc/SKILL.md":   "---\nname: nodesc\n---\n",
			".agents/skills/Upper/SKILL.md":    skillFile("Upper", "bad name", ""),
			".agents/skills/yaml/SKILL.md":     "---\nname: [yaml\n---\n",
			".agents/skills/long/SKILL.md":     skillFile("long", strings.Repeat("d", albedo.MaxSkillDescription+1), ""),
			".agents/skills/fine/SKILL.md":     skillFile("fine", "works", ""),
			".agents/skills/no-skill/notes.md": "",
		}, nil, "",
			[]string{"fine=.agents/skills/fine/SKILL.md: works"},
			[]string{
				".agents/skills/Upper/SKILL.md was skipped: its name \"Upper\" is not",
				".agents/skills/long/SKILL.md was skipped: its description is over 1024 bytes",
				".agents/skills/nodesc/SKILL.md was skipped: its front matter has no description",
				".agents/skills/none/SKILL.md was skipped: it does not start with front matter",
				".agents/skills/open/SKILL.md was skipped: its front matter does not end",
				".agents/skills/other/SKILL.md was skipped: its name \"another\" is not its folder's name \"other\"",
				".agents/skills/yaml/SKILL.md was skipped: its front matter is not valid YAML",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			layout(t, root, tt.files)
			layout(t, home, tt.home)
			ws := filepath.Join(root, filepath.FromSlash(tt.workspace))
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			set, err := New(home, nil).Instructions(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			wantSkills(t, set, tt.want, tt.warnings)
		})
	}
}

// TestSkillsReachNoFurtherThanTheKernel lays out skills a model's code
// could make in its workspace to have the daemon read a secret for it.
func TestSkillsReachNoFurtherThanTheKernel(t *testing.T) {
	tests := []struct {
		name string
		// make lays the case out in the repository root, beside home (the
		// albedo home, holding daemon.json and the user's skill "mine")
		// and secret (a hidden folder holding id_rsa and a SKILL.md).
		make     func(t *testing.T, root, home, secret string)
		want     []string
		warnings []string
	}{
		{"a SKILL.md linked to a hidden one", func(t *testing.T, root, _, secret string) {
			symlink(t, filepath.Join(secret, "SKILL.md"), filepath.Join(root, ".agents/skills/leak/SKILL.md"))
		}, []string{"mine=ALBEDO_HOME/skills/mine/SKILL.md: my own"}, []string{".agents/skills/leak/SKILL.md was skipped: a link on its way leads out of"}},
		{"a skill folder linked to a hidden folder", func(t *testing.T, root, _, secret string) {
			symlink(t, secret, filepath.Join(root, ".agents/skills/leak"))
		}, []string{"mine=ALBEDO_HOME/skills/mine/SKILL.md: my own"}, []string{".agents/skills/leak/SKILL.md was skipped: a link on its way leads out of"}},
		{"a skills folder linked to the home's", func(t *testing.T, root, home, _ string) {
			symlink(t, filepath.Join(home, "skills"), filepath.Join(root, ".claude/skills"))
		}, []string{"mine=ALBEDO_HOME/skills/mine/SKILL.md: my own"}, []string{".claude/skills was skipped: a link on its way leads out of"}},
		{"a hidden folder inside the repository", func(t *testing.T, root, _, _ string) {
			layout(t, root, map[string]string{"albedo-home/skills/inner/SKILL.md": skillFile("inner", "hidden", "")})
			symlink(t, "../albedo-home/skills", filepath.Join(root, ".agents/skills"))
		}, []string{"mine=ALBEDO_HOME/skills/mine/SKILL.md: my own"}, []string{".agents/skills was skipped: it lies under the hidden path"}},
		{"the user's own skill linking out of the home's skills folder", func(t *testing.T, _, home, _ string) {
			symlink(t, "../../daemon.json", filepath.Join(home, "skills/token/SKILL.md"))
		}, []string{"mine=ALBEDO_HOME/skills/mine/SKILL.md: my own"}, []string{"ALBEDO_HOME/skills/token/SKILL.md was skipped: a link on its way leads out of"}},
		{"a link within the repository is followed", func(t *testing.T, root, _, _ string) {
			layout(t, root, map[string]string{"shared/lint/SKILL.md": skillFile("lint", "shared", "")})
			symlink(t, "../../shared/lint", filepath.Join(root, ".agents/skills/lint"))
		}, []string{"mine=ALBEDO_HOME/skills/mine/SKILL.md: my own", "lint=.agents/skills/lint/SKILL.md: shared"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root, home, secret := filepath.Join(base, "repo"), filepath.Join(base, "home"), filepath.Join(base, "secret")
			layout(t, root, map[string]string{".git/HEAD": ""})
			layout(t, home, map[string]string{"daemon.json": `{"token":"secret"}`, "skills/mine/SKILL.md": skillFile("mine", "my own", "")})
			layout(t, secret, map[string]string{"id_rsa": "KEY", "SKILL.md": skillFile("leak", "KEY", "")})
			tt.make(t, root, home, secret)
			hidden := func(context.Context) []string { return []string{secret, filepath.Join(root, "albedo-home"), home} }
			set, err := New(home, hidden).Instructions(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			wantSkills(t, set, tt.want, tt.warnings)
		})
	}
}

func TestReadSkill(t *testing.T) {
	base := t.TempDir()
	root, home, secret := filepath.Join(base, "repo"), filepath.Join(base, "home"), filepath.Join(base, "secret")
	layout(t, root, map[string]string{
		".git/HEAD":                          "",
		".agents/skills/lint/SKILL.md":       skillFile("lint", "lints", "\nRun the linter.\n"),
		".agents/skills/lint/scripts/run.sh": "echo lint",
		".agents/skills/lint/ref/rules.md":   "rules",
		".agents/skills/lint/bin.dat":        "\xff\xfe",
	})
	layout(t, home, map[string]string{
		"daemon.json":                "secret token",
		"skills/deploy/SKILL.md":     skillFile("deploy", "deploys", "Deploy with care.\n"),
		"skills/deploy/checklist.md": "1. build",
	})
	layout(t, secret, map[string]string{"id_rsa": "KEY"})
	symlink(t, filepath.Join(secret, "id_rsa"), filepath.Join(root, ".agents/skills/lint/key"))
	hidden := func(context.Context) []string { return []string{secret, home} }
	f := New(home, hidden)
	ctx := context.Background()
	tests := []struct {
		name, skill, file string
		want              string // the text, or "error: ..." a prefix of the error
	}{
		{"a workspace skill's body", "lint", "", "Run the linter.\n"},
		{"a file of it", "lint", "scripts/run.sh", "echo lint"},
		{"its SKILL.md whole", "lint", "SKILL.md", skillFile("lint", "lints", "\nRun the linter.\n")},
		{"the user's own skill, though the home is hidden", "deploy", "", "Deploy with care.\n"},
		{"a file of the user's own skill", "deploy", "checklist.md", "1. build"},
		{"out of the skill's folder", "deploy", "../../daemon.json", "error: skill deploy: \"../../daemon.json\" is not a path inside its folder"},
		{"an absolute path", "lint", "/etc/passwd", "error: skill lint: \"/etc/passwd\" is not a path inside its folder"},
		{"a link to a hidden key", "lint", "key", "error: skill lint: key was not read: a link on its way leads out of"},
		{"a missing file", "lint", "nope.md", "error: skill lint has no file nope.md"},
		{"a folder", "lint", "ref", "error: skill lint: ref is a folder"},
		{"a file not UTF-8", "lint", "bin.dat", "error: skill lint: bin.dat is not UTF-8 text"},
		{"an unknown skill", "nope", "", "error: no skill is named nope: the skills offered are deploy, lint"},
		{"a name that is no skill name", "../x", "", "error: skill name \"../x\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.ReadSkill(ctx, root, tt.skill, tt.file)
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.HasPrefix(errMessage(err), want) {
					t.Fatalf("ReadSkill(%s, %q) = %q, %v; want the error %q", tt.skill, tt.file, got.Text, err, want)
				}
				return
			}
			if err != nil || got.Text != tt.want {
				t.Fatalf("ReadSkill(%s, %q) = %q, %v; want %q", tt.skill, tt.file, got.Text, err, tt.want)
			}
		})
	}
	files, err := f.SkillFiles(ctx, root, "lint")
	if want := []string{"SKILL.md", "bin.dat", "key", "ref/rules.md", "scripts/run.sh"}; err != nil || !slices.Equal(files, want) {
		t.Errorf("SkillFiles(lint) = %q, %v; want %q", files, err, want)
	}
	files, err = f.SkillFiles(ctx, root, "deploy")
	if want := []string{"SKILL.md", "checklist.md"}; err != nil || !slices.Equal(files, want) {
		t.Errorf("SkillFiles(deploy) = %q, %v; want %q", files, err, want)
	}
}

// errMessage is an application error's message, else the error's text.
func errMessage(err error) string {
	var e *albedo.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

func TestParseSkill(t *testing.T) {
	tests := []struct {
		name, text        string
		meta, description string // name and description; meta "error: ..." for an error
		body              string
	}{
		{"plain", "---\nname: a\ndescription: does a\n---\nbody\n", "a", "does a", "body\n"},
		{"quoted, other fields kept out", "---\nname: \"a\"\nlicense: MIT\ndescription: 'says: \"hi\"'\nmetadata:\n  version: 1\nallowed-tools: [Read, Bash]\n---\n\n# A\n", "a", `says: "hi"`, "# A\n"},
		{"a folded description", "---\nname: a\ndescription: >\n  first line\n  second line\n---\nbody", "a", "first line second line", "body"},
		{"CRLF lines and a byte order mark", "\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n", "a", "d", "body\r\n"},
		{"no front matter", "# title\n", "error: it does not start with front matter", "", ""},
		{"front matter that does not end", "---\nname: a\n", "error: its front matter does not end", "", ""},
		{"a name that is a list", "---\nname: [a, b]\ndescription: d\n---\n", "error: its front matter is not valid YAML", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta, body, err := parseSkill(tt.text)
			if want, ok := strings.CutPrefix(tt.meta, "error: "); ok {
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("parseSkill = %+v, %v; want the error %q", meta, err, want)
				}
				return
			}
			if err != nil || meta.Name != tt.meta || meta.Description != tt.description || body != tt.body {
				t.Fatalf("parseSkill = %+v, %q, %v; want %q, %q, %q", meta, body, err, tt.meta, tt.description, tt.body)
			}
		})
	}
}

// wantSkills fails the test unless set offers the skills want (each
// name=source: description, in order) and warnings starting with those of
// warnings, in any order.
func wantSkills(t *testing.T, set albedo.InstructionSet, want, warnings []string) {
	t.Helper()
	var got []string
	for _, s := range set.Skills {
		got = append(got, s.Name+"="+s.Source+": "+s.Description)
	}
	if !slices.Equal(got, want) {
		t.Errorf("skills = %.300q, want %.300q", got, want)
	}
	left := slices.Clone(set.Warnings)
	slices.Sort(left)
	if len(left) != len(warnings) {
		t.Fatalf("warnings = %q, want %q", left, warnings)
	}
	for i, w := range warnings {
		if !strings.HasPrefix(left[i], w) {
			t.Errorf("warning %q, want %q", left[i], w)
		}
	}
}
