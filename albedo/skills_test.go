package albedo

import (
	"strings"
	"testing"
)

func TestSkillsBlock(t *testing.T) {
	tests := []struct {
		name   string
		skills []Skill
		want   []string // the lines between the intro and </skills>
	}{
		{"none", nil, nil},
		{"sorted by name, one line each", []Skill{
			{Name: "zip", Description: "packs files"},
			{Name: "alpha", Description: "first\n  of   all"},
		}, []string{"- alpha: first of all", "- zip: packs files"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SkillsBlock(tt.skills)
			if tt.want == nil {
				if got != "" {
					t.Fatalf("SkillsBlock = %q, want nothing", got)
				}
				return
			}
			want := skillsIntro + strings.Join(tt.want, "\n") + "\n</skills>"
			if got != want {
				t.Fatalf("SkillsBlock =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestSkillsBlockIsCapped(t *testing.T) {
	var skills []Skill
	for i := range 100 {
		skills = append(skills, Skill{Name: "s" + strings.Repeat("x", i%10) + string(rune('a'+i/10)) + string(rune('a'+i%10)), Description: strings.Repeat("d", 400)})
	}
	got := SkillsBlock(skills)
	if len(got) > MaxSkillsText+200 {
		t.Fatalf("the block is %d bytes, over the cap of %d", len(got), MaxSkillsText)
	}
	if !strings.Contains(got, "more skills are left out: this list is limited to 16 KiB]\n</skills>") {
		t.Fatalf("the block does not say skills were left out:\n%s", got[len(got)-200:])
	}
}

func TestSkillMessage(t *testing.T) {
	skill := SkillText{Skill: Skill{Name: "deploy", Source: ".agents/skills/deploy/SKILL.md"}, Text: "Build, then ship.\n"}
	tests := []struct{ text, want string }{
		{"ship v2", "ship v2\n\n<skill name=\"deploy\" source=\".agents/skills/deploy/SKILL.md\">\nBuild, then ship.\n</skill>"},
		{"  ", "/deploy\n\n<skill name=\"deploy\" source=\".agents/skills/deploy/SKILL.md\">\nBuild, then ship.\n</skill>"},
	}
	for _, tt := range tests {
		if got := SkillMessage(tt.text, skill); got != tt.want {
			t.Errorf("SkillMessage(%q) =\n%s\nwant\n%s", tt.text, got, tt.want)
		}
	}
}

func TestCheckSkillName(t *testing.T) {
	for name, ok := range map[string]bool{
		"pdf": true, "a-b-2": true, strings.Repeat("a", 64): true,
		"": false, "A": false, "a--b": false, "-a": false, "a-": false, "a_b": false, "../x": false, strings.Repeat("a", 65): false,
	} {
		if got := CheckSkillName(name) == nil; got != ok {
			t.Errorf("CheckSkillName(%q) accepts: %v, want %v", name, got, ok)
		}
	}
}
