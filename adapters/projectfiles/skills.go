package projectfiles

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
)

// HomeSkills is the source prefix of the user's own skills.
const HomeSkills = "ALBEDO_HOME/skills"

// projectSkillFolders are the skills folders of a project folder, the
// first winning a name they share.
var projectSkillFolders = []string{".albedo/skills", ".agents/skills", ".claude/skills"}

// maxSkillFiles caps what SkillFiles lists of one skill.
const maxSkillFiles = 1000

// skillsFolder is one folder holding skills, each in a folder of its own.
type skillsFolder struct {
	// root is where the files are opened beneath, rel the skills folder
	// relative to it ("." for root itself).
	root, rel string
	// source is how the skills folder is named to the user and the model.
	source string
	// hidden are the paths nothing read there may lie under.
	hidden []string
}

// foundSkill is a usable skill and where it lies.
type foundSkill struct {
	albedo.Skill
	folder skillsFolder
	body   string
}

// dir is the skill's folder relative to its root.
func (s foundSkill) dir() string { return filepath.Join(s.folder.rel, s.Name) }

// skillsFolders lists the folders skills are looked for in, highest
// precedence first: the home's skills folder, then from workspace up to
// the repository root (nearest first) each folder's .albedo/skills,
// .agents/skills and .claude/skills.
func (f *Files) skillsFolders(ctx context.Context, workspace string) []skillsFolder {
	var hidden []string
	if f.hidden != nil {
		hidden = f.hidden(ctx)
	}
	var out []skillsFolder
	if f.home != "" {
		// The user's own skills lie in the home, which the sandbox hides:
		// every hidden path but those holding the skills folder still
		// applies, and no link leads out of it.
		own := filepath.Join(f.home, "skills")
		var rest []string
		for _, h := range hidden {
			if !within(own, h) {
				rest = append(rest, h)
			}
		}
		out = append(out, skillsFolder{root: own, rel: ".", source: HomeSkills, hidden: rest})
	}
	if workspace == "" {
		return out
	}
	if f.home != "" {
		hidden = append(hidden, f.home)
	}
	root := localfs.RepositoryRoot(workspace)
	dirs := chain(root, workspace)
	slices.Reverse(dirs)
	for _, dir := range dirs {
		for _, name := range projectSkillFolders {
			rel, err := filepath.Rel(root, filepath.Join(dir, name))
			if err != nil {
				continue
			}
			out = append(out, skillsFolder{root: root, rel: rel, source: filepath.ToSlash(rel), hidden: hidden})
		}
	}
	return out
}

// within reports whether path is dir or lies beneath it, both cleaned.
func within(path, dir string) bool {
	path, dir = filepath.Clean(path), filepath.Clean(dir)
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// skills finds the usable skills of workspace, the first of a name
// winning, and warnings for those skipped.
func (f *Files) skills(ctx context.Context, workspace string) ([]foundSkill, []string, error) {
	var found []foundSkill
	var warnings []string
	seen := map[string]string{}
	for _, folder := range f.skillsFolders(ctx, workspace) {
		if err := ctx.Err(); err != nil {
			return found, warnings, err
		}
		entries, err := localfs.ReadDirBeneath(folder.root, folder.rel, folder.hidden)
		if err != nil {
			if warn := skipReason(err); warn != "" {
				warnings = append(warnings, folder.source+" was skipped: "+warn)
			}
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			s, warn := readSkill(folder, e.Name())
			switch {
			case warn != "":
				warnings = append(warnings, warn)
			case s.Name == "":
				// No SKILL.md: a folder of something else.
			case seen[s.Name] != "":
				warnings = append(warnings, fmt.Sprintf("%s was skipped: the skill %s of %s comes first", s.Source, s.Name, seen[s.Name]))
			default:
				seen[s.Name] = s.Source
				found = append(found, s)
			}
		}
	}
	return found, warnings, nil
}

// skipReason says why a file or folder that exists was not read, "" when
// it does not exist.
func skipReason(err error) string {
	var no *localfs.RefusedError
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return ""
	case errors.Is(err, localfs.ErrTooLarge):
		return "it is over 1 MiB"
	case errors.As(err, &no):
		return no.Reason
	}
	return err.Error()
}

// readSkill reads the SKILL.md of the skill folder name in folder. The
// skill's Name is "" when there is none; warn says why one that exists
// is not usable.
func readSkill(folder skillsFolder, name string) (s foundSkill, warn string) {
	source := path.Join(folder.source, name, "SKILL.md")
	data, err := localfs.ReadBeneath(folder.root, filepath.Join(folder.rel, name, "SKILL.md"), folder.hidden, albedo.MaxSkillFile)
	if err != nil {
		if reason := skipReason(err); reason != "" && !errors.Is(err, localfs.ErrFolder) {
			return foundSkill{}, source + " was skipped: " + reason
		}
		return foundSkill{}, ""
	}
	if !utf8.Valid(data) {
		return foundSkill{}, source + " was skipped: it is not UTF-8 text"
	}
	meta, body, err := parseSkill(string(data))
	if err == nil {
		err = checkSkill(meta, name)
	}
	if err != nil {
		return foundSkill{}, source + " was skipped: " + err.Error()
	}
	return foundSkill{Skill: albedo.Skill{Name: meta.Name, Description: meta.Description, Source: source}, folder: folder, body: body}, ""
}

// checkSkill says what is wrong with a skill's front matter, if anything.
func checkSkill(meta skillMeta, folder string) error {
	switch {
	case meta.Name == "":
		return errors.New("its front matter has no name")
	case albedo.CheckSkillName(meta.Name) != nil:
		return fmt.Errorf("its name %q is not at most 64 lowercase letters, digits and single hyphens", meta.Name)
	case meta.Name != folder:
		return fmt.Errorf("its name %q is not its folder's name %q", meta.Name, folder)
	case strings.TrimSpace(meta.Description) == "":
		return errors.New("its front matter has no description")
	case len(meta.Description) > albedo.MaxSkillDescription:
		return fmt.Errorf("its description is over %d bytes", albedo.MaxSkillDescription)
	}
	return nil
}

// skill finds the skill of workspace named name, as the instructions
// offer it.
func (f *Files) skill(ctx context.Context, workspace, name string) (foundSkill, error) {
	if err := albedo.CheckSkillName(name); err != nil {
		return foundSkill{}, err
	}
	found, _, err := f.skills(ctx, workspace)
	if err != nil {
		return foundSkill{}, fmt.Errorf("find skill %s: %w", name, err)
	}
	names := make([]string, 0, len(found))
	for _, s := range found {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	slices.Sort(names)
	offered := "none is offered"
	if len(names) > 0 {
		offered = "the skills offered are " + strings.Join(names, ", ")
	}
	return foundSkill{}, albedo.Errorf(albedo.ENotFound, "no skill is named %s: %s", name, offered)
}

// ReadSkill returns the body of the named skill, or the text of one of
// its files, read as its SKILL.md is: beneath its skills folder's root,
// through no link leading out of it, under no hidden path.
func (f *Files) ReadSkill(ctx context.Context, workspace, name, file string) (albedo.SkillText, error) {
	s, err := f.skill(ctx, workspace, name)
	if err != nil {
		return albedo.SkillText{}, err
	}
	if file == "" {
		return albedo.SkillText{Skill: s.Skill, Text: s.body}, nil
	}
	if filepath.IsAbs(file) || !filepath.IsLocal(filepath.FromSlash(file)) {
		return albedo.SkillText{}, albedo.Errorf(albedo.EInvalid, "skill %s: %q is not a path inside its folder", name, file)
	}
	data, err := localfs.ReadBeneath(s.folder.root, filepath.Join(s.dir(), filepath.FromSlash(file)), s.folder.hidden, albedo.MaxSkillFile)
	if err != nil {
		switch reason := skipReason(err); {
		case errors.Is(err, fs.ErrNotExist):
			return albedo.SkillText{}, albedo.Errorf(albedo.ENotFound, "skill %s has no file %s", name, file)
		case errors.Is(err, localfs.ErrFolder):
			return albedo.SkillText{}, albedo.Errorf(albedo.EInvalid, "skill %s: %s is a folder; skills.files(%q) lists its files", name, file, name)
		default:
			return albedo.SkillText{}, albedo.Errorf(albedo.EInvalid, "skill %s: %s was not read: %s", name, file, reason)
		}
	}
	if !utf8.Valid(data) {
		return albedo.SkillText{}, albedo.Errorf(albedo.EInvalid, "skill %s: %s is not UTF-8 text", name, file)
	}
	return albedo.SkillText{Skill: s.Skill, Text: string(data)}, nil
}

// SkillFiles lists the files of the named skill's folder, at most
// maxSkillFiles, listed as ReadDirBeneath lists.
func (f *Files) SkillFiles(ctx context.Context, workspace, name string) ([]string, error) {
	s, err := f.skill(ctx, workspace, name)
	if err != nil {
		return nil, err
	}
	var files []string
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := localfs.ReadDirBeneath(s.folder.root, filepath.Join(s.dir(), rel), s.folder.hidden)
		if err != nil {
			return fmt.Errorf("list the files of skill %s: %w", name, err)
		}
		for _, e := range entries {
			if len(files) >= maxSkillFiles {
				return nil
			}
			child := filepath.Join(rel, e.Name())
			if e.IsDir() {
				if err := walk(child); err != nil {
					return err
				}
				continue
			}
			if e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0 {
				files = append(files, filepath.ToSlash(child))
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}
