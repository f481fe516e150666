package markup

import "strings"

// Clean makes text safe to show: tabs become spaces, terminal escape
// sequences and other control characters go, and \r\n becomes \n.
func Clean(text string) string {
	clean := true
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 && c != '\n' || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\t':
			b.WriteString("    ")
		case c == 0x1b:
			i = skipEscape(text, i)
		case c == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case c < 0x20 && c != '\n', c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipEscape returns the index of the last byte of the escape sequence
// that starts at text[i] (an ESC).
func skipEscape(text string, i int) int {
	if i+1 >= len(text) {
		return i
	}
	switch text[i+1] {
	case '[': // CSI: parameters, then a final byte in @..~
		for j := i + 2; j < len(text); j++ {
			if text[j] >= 0x40 && text[j] <= 0x7e {
				return j
			}
		}
		return len(text) - 1
	case ']': // OSC: up to BEL or ESC \
		for j := i + 2; j < len(text); j++ {
			if text[j] == 0x07 {
				return j
			}
			if text[j] == 0x1b && j+1 < len(text) && text[j+1] == '\\' {
				return j + 1
			}
		}
		return len(text) - 1
	}
	return i + 1
}
