package mcp

import (
	"fmt"
	"regexp"
	"strings"
)

// reference matches one ${NAME} in a value.
var reference = regexp.MustCompile(`\$\{([^}]*)\}`)

// references returns the variables a value names as ${NAME}, and an error
// for a malformed or forbidden one.
func references(value string) ([]string, error) {
	var names []string
	for _, m := range reference.FindAllStringSubmatch(value, -1) {
		name := m[1]
		if !envName.MatchString(name) {
			return nil, fmt.Errorf("${%s} does not name a variable", name)
		}
		if strings.HasPrefix(strings.ToUpper(name), "ALBEDO_") {
			return nil, fmt.Errorf("${%s}: ALBEDO_* variables are albedo's own and never reach a server", name)
		}
		names = append(names, name)
	}
	if strings.Contains(reference.ReplaceAllString(value, ""), "${") {
		return nil, fmt.Errorf("an unclosed ${ in %q", value)
	}
	return names, nil
}

// Expand replaces each ${NAME} in value with the daemon's variable of that
// name, as lookup finds it. A variable that is not set is an error naming
// it: the server needing it does not start.
func Expand(value string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := reference.ReplaceAllStringFunc(value, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("the variable %s is not set in the daemon's environment", strings.Join(missing, ", "))
	}
	return out, nil
}
