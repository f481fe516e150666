package console

import (
	"fmt"
	"strconv"
	"strings"
)

// command is a parsed slash command.
type command struct {
	name string
	// args are the words after the name; rest is the text after the name.
	args []string
	rest string
}

// commandHelp lists the slash commands, in the order /help shows them.
func commandHelp() []struct{ usage, summary string } {
	return []struct{ usage, summary string }{
		{"/model [PROVIDER] MODEL", "switch this session's model (and provider)"},
		{"/fork ID", "start a new session from this one up to checkpoint #ID"},
		{"/workspace PATH", "move this session to another folder"},
		{"/name NAME", "name this session"},
		{"/sessions", "pick another session"},
		{"/vents", "open the vent ledger"},
		{"/help", "show commands and keys"},
		{"/quit", "detach: the session goes on in the daemon"},
	}
}

// parseCommand reads a slash command from the input. ok is false when text
// is a message to send (it does not start with "/", or starts with "//",
// which sends the rest with one slash).
func parseCommand(text string) (cmd command, ok bool, err error) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") || strings.HasPrefix(text, "//") {
		return command{}, false, nil
	}
	name, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, rest = name[:i], name[i:]+" "+rest
	}
	cmd = command{name: name, rest: strings.TrimSpace(rest), args: strings.Fields(rest)}
	switch cmd.name {
	case "/model":
		if n := len(cmd.args); n < 1 || n > 2 {
			return cmd, true, fmt.Errorf("usage: /model [PROVIDER] MODEL")
		}
	case "/fork":
		if len(cmd.args) != 1 {
			return cmd, true, fmt.Errorf("usage: /fork ID (a checkpoint: the #number shown on a message or cell)")
		}
		if _, err := strconv.ParseInt(strings.TrimPrefix(cmd.args[0], "#"), 10, 64); err != nil {
			return cmd, true, fmt.Errorf("/fork needs a checkpoint number, not %q", cmd.args[0])
		}
	case "/workspace":
		if cmd.rest == "" {
			return cmd, true, fmt.Errorf("usage: /workspace PATH")
		}
	case "/name":
		if cmd.rest == "" {
			return cmd, true, fmt.Errorf("usage: /name NAME")
		}
	case "/vents", "/help", "/quit", "/sessions":
		if cmd.rest != "" {
			return cmd, true, fmt.Errorf("%s takes no arguments", cmd.name)
		}
	default:
		return cmd, true, fmt.Errorf("unknown command %s: /help lists them (start a message with // to send a leading /)", cmd.name)
	}
	return cmd, true, nil
}

// unescapeMessage turns a leading "//" into "/".
func unescapeMessage(text string) string {
	if t := strings.TrimLeft(text, " \t\n"); strings.HasPrefix(t, "//") {
		return t[1:]
	}
	return text
}

// checkpoint returns the checkpoint a /fork names.
func (c command) checkpoint() int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(c.args[0], "#"), 10, 64)
	return n
}

// modelArgs returns the provider (maybe empty) and model of /model.
func (c command) modelArgs() (provider, model string) {
	if len(c.args) == 2 {
		return c.args[0], c.args[1]
	}
	return "", c.args[0]
}
