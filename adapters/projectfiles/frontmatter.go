package projectfiles

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// skillMeta is what albedo reads of a SKILL.md's front matter; other
// fields (license, allowed-tools, metadata) are left alone.
type skillMeta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// parseSkill splits a SKILL.md into its front matter, a YAML mapping
// between a first line "---" and the next line "---", and the markdown
// body after it. The front matter is YAML as the other tools that read
// SKILL.md write it (quoted strings, folded and literal blocks, nested
// metadata), so it is read by a YAML parser rather than line by line.
func parseSkill(text string) (skillMeta, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	first, rest, ok := cutLine(text)
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return skillMeta{}, "", errors.New("it does not start with front matter (a line ---)")
	}
	var front strings.Builder
	for {
		line, after, more := cutLine(rest)
		if strings.TrimRight(line, " \t") == "---" {
			rest = after
			break
		}
		if !more {
			return skillMeta{}, "", errors.New("its front matter does not end (no closing line ---)")
		}
		front.WriteString(line)
		front.WriteByte('\n')
		rest = after
	}
	var meta skillMeta
	if err := yaml.Unmarshal([]byte(front.String()), &meta); err != nil {
		return skillMeta{}, "", fmt.Errorf("its front matter is not valid YAML: %s", firstLine(err.Error()))
	}
	meta.Name, meta.Description = strings.TrimSpace(meta.Name), strings.TrimSpace(meta.Description)
	return meta, strings.TrimLeft(rest, "\r\n"), nil
}

// cutLine splits text at its first line break (\n or \r\n); more is
// false when text has none.
func cutLine(text string) (line, rest string, more bool) {
	line, rest, more = strings.Cut(text, "\n")
	return strings.TrimSuffix(line, "\r"), rest, more
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
