package albedo

import (
	"fmt"
	"unicode/utf8"
)

// ClipMiddle returns text whole when it fits in limit bytes, else its
// head and tail, limit bytes together, with a line between them saying
// how many bytes were cut, then hint. The cuts fall between characters.
func ClipMiddle(text string, limit int, hint string) string {
	if len(text) <= limit || limit <= 0 {
		return text
	}
	head := limit / 2
	for head > 0 && !utf8.RuneStart(text[head]) {
		head--
	}
	tail := len(text) - (limit - head)
	for tail < len(text) && !utf8.RuneStart(text[tail]) {
		tail++
	}
	marker := fmt.Sprintf("\n[... %d bytes cut", tail-head)
	if hint != "" {
		marker += "; " + hint
	}
	return text[:head] + marker + " ...]\n" + text[tail:]
}
