package projectfiles

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkInstructions measures what a turn's first request spends
// finding the project's files: the instruction files alone, then with
// skills in the home and the workspace's three skills folders.
func BenchmarkInstructions(b *testing.B) {
	for _, n := range []int{0, 3, 30} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			root, home := b.TempDir(), b.TempDir()
			files := map[string]string{".git/HEAD": "", "AGENTS.md": "rules"}
			folders := []string{".agents/skills", ".claude/skills", ".albedo/skills"}
			for i := range n {
				name := fmt.Sprintf("skill-%d", i)
				body := strings.Repeat("Step.\n", 500)
				if i%4 == 3 {
					layout(b, home, map[string]string{"skills/" + name + "/SKILL.md": skillFile(name, "does "+name, body)})
					continue
				}
				files[filepath.Join(folders[i%3], name, "SKILL.md")] = skillFile(name, "does "+name, body)
			}
			layout(b, root, files)
			f := New(home, nil)
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				set, err := f.Instructions(ctx, root)
				if err != nil || len(set.Skills) != n {
					b.Fatalf("%d skills, %v", len(set.Skills), err)
				}
			}
		})
	}
}
