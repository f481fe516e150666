package albedo

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Skill is an Agent Skill offered to the model: a folder holding a
// SKILL.md whose front matter names and describes it, and whose body the
// model reads only when a task calls for it.
type Skill struct {
	// Name is the skill's name, the name of its folder too.
	Name string
	// Description says what the skill does and when to use it.
	Description string
	// Source names its SKILL.md: "ALBEDO_HOME/skills/NAME/SKILL.md" for
	// the user's own, else its path from the repository root.
	Source string
}

// SkillReader reads what the instructions only name: the body and the
// files of a skill a workspace offers (see InstructionSource).
type SkillReader interface {
	// ReadSkill returns the body of the named skill's SKILL.md (its
	// front matter left out) when file is "", else the text of file, a
	// path relative to the skill's folder.
	ReadSkill(ctx context.Context, workspace, name, file string) (SkillText, error)
	// SkillFiles lists the files of the named skill's folder, paths
	// relative to it, sorted, SKILL.md included.
	SkillFiles(ctx context.Context, workspace, name string) ([]string, error)
}

// SkillText is what ReadSkill read.
type SkillText struct {
	Skill Skill
	Text  string
}

// MaxSkillFile is the largest SKILL.md, or file of a skill, that is read.
const MaxSkillFile = 1 << 20

// MaxSkillDescription is the longest description a skill may have, in
// bytes.
const MaxSkillDescription = 1024

// MaxSkillsText caps the skills block of the instructions; the skills
// beyond it, by name, are left out of it.
const MaxSkillsText = 16 << 10

// skillName is what a skill's name may be: lowercase letters, digits and
// single hyphens, at most 64 characters.
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// CheckSkillName says what is wrong with a skill's name, if anything.
func CheckSkillName(name string) error {
	if len(name) > 64 || !skillName.MatchString(name) {
		return Errorf(EInvalid, "skill name %q: it must be at most 64 lowercase letters, digits and single hyphens", name)
	}
	return nil
}

// skillsIntro opens the skills block of the instructions.
const skillsIntro = `<skills>
Skills are instructions and files for particular tasks. When a task matches a skill's description,
read the skill before you start: await skills.read(name) returns its instructions,
await skills.files(name) lists the files beside them, and await skills.read(name, file) reads one.
`

// SkillsBlock is the part of the instructions that names the skills
// offered, one line each, sorted by name so that it is the same bytes from
// one request to the next; "" when there are none. The skills beyond
// MaxSkillsText are left out, with a line saying how many.
func SkillsBlock(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(skillsIntro)
	left := 0
	for _, s := range sortedSkills(skills) {
		line := fmt.Sprintf("- %s: %s\n", s.Name, oneLine(s.Description))
		if left > 0 || b.Len()+len(line) > MaxSkillsText {
			left++
			continue
		}
		b.WriteString(line)
	}
	if left > 0 {
		fmt.Fprintf(&b, "[%d more skills are left out: this list is limited to %d KiB]\n", left, MaxSkillsText>>10)
	}
	b.WriteString("</skills>")
	return b.String()
}

// sortedSkills returns skills sorted by name.
func sortedSkills(skills []Skill) []Skill {
	out := slices.Clone(skills)
	slices.SortFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// oneLine folds the runs of white space of s, line breaks included, into
// single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// SkillMessage is the text of a user message that starts a skill: what
// the user typed (or "/NAME" when nothing), a blank line, then the
// skill's body in a <skill name="NAME" source="SOURCE"> element.
func SkillMessage(text string, skill SkillText) string {
	if strings.TrimSpace(text) == "" {
		text = "/" + skill.Skill.Name
	}
	return fmt.Sprintf("%s\n\n<skill name=%q source=%q>\n%s\n</skill>", text, skill.Skill.Name, skill.Skill.Source, strings.Trim(skill.Text, "\n"))
}
