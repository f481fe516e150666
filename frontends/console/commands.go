package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
)

// command is a parsed slash command.
type command struct {
	name string
	// args are the words after the name; rest is the text after the name.
	args []string
	rest string
	// skill names the skill of a skillCommand.
	skill string
}

// commandHelp lists the slash commands, in the order /help shows them.
func commandHelp() []struct{ usage, summary string } {
	return []struct{ usage, summary string }{
		{"/model [[PROVIDER] MODEL]", "switch this session's model (and provider); alone, pick one"},
		{"/login", "add or change a model provider (name, URL, model, key)"},
		{"/compact", "summarise the earlier conversation; later requests start from the summary"},
		{"/fork ID", "start a new session from this one up to checkpoint #ID"},
		{"/diff ID", "list the files changed after #ID, with their added and removed lines"},
		{"/rewind ID [apply|force]", "preview putting back the files changed after #ID; apply does it"},
		{"/new", "start a new session in this session's folder"},
		{"/workspace PATH", "move this session to another folder"},
		{"/name NAME", "name this session"},
		{"/sessions", "pick another session"},
		{"/vents", "open the vent ledger"},
		{"/sandbox", "what the model's Python may write, read and reach"},
		{"/mcp [approve|restart NAME]", "this folder's MCP servers; approve the repository's own one, restart one"},
		{"/SKILL [TEXT]", "send TEXT with the instructions of the skill SKILL (one the workspace offers)"},
		{"/help", "show commands and keys"},
		{"/quit", "detach: the session goes on in the daemon"},
	}
}

// skillCommand is the name of a parsed "/SKILL TEXT", which starts the
// skill SKILL; the command's skill field names it.
const skillCommand = "/skill"

// skillName is what a skill's name may be (see albedo.CheckSkillName).
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// parseCommand reads a slash command from the input. ok is false when text
// is a message to send (it does not start with "/", or starts with "//",
// which sends the rest with one slash). A name that is none of the
// console's commands but may be a skill's starts that skill: the daemon
// says whether there is one.
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
		if n := len(cmd.args); n > 2 {
			return cmd, true, fmt.Errorf("usage: /model [[PROVIDER] MODEL]")
		}
	case "/fork", "/rewind", "/diff":
		if n := len(cmd.args); n < 1 || n > 2 || n == 2 && (cmd.name != "/rewind" || cmd.args[1] != "apply" && cmd.args[1] != "force") {
			return cmd, true, fmt.Errorf("usage: %s (ID: the #number shown on a message or cell)", usage(cmd.name))
		}
		if _, err := strconv.ParseInt(strings.TrimPrefix(cmd.args[0], "#"), 10, 64); err != nil {
			return cmd, true, fmt.Errorf("%s needs a checkpoint number, not %q", cmd.name, cmd.args[0])
		}
	case "/workspace", "/name":
		if cmd.rest == "" {
			return cmd, true, fmt.Errorf("usage: %s", usage(cmd.name))
		}
	case "/mcp":
		if n := len(cmd.args); n != 0 && (n != 2 || cmd.args[0] != "approve" && cmd.args[0] != "restart") {
			return cmd, true, fmt.Errorf("usage: /mcp, /mcp approve NAME or /mcp restart NAME")
		}
	case "/vents", "/help", "/quit", "/sessions", "/login", "/compact", "/new", "/sandbox":
		if cmd.rest != "" {
			return cmd, true, fmt.Errorf("%s takes no arguments", cmd.name)
		}
	default:
		if skill := cmd.name[1:]; len(skill) <= 64 && skillName.MatchString(skill) {
			cmd.name, cmd.skill = skillCommand, skill
			return cmd, true, nil
		}
		return cmd, true, unknownCommand(cmd.name)
	}
	return cmd, true, nil
}

// usage is the usage /help shows of the command name.
func usage(name string) string {
	for _, c := range commandHelp() {
		if strings.HasPrefix(c.usage, name+" ") {
			return c.usage
		}
	}
	return name
}

// unknownCommand is the error of a command the console does not know.
func unknownCommand(name string) error {
	return fmt.Errorf("unknown command %s: /help lists them (start a message with // to send a leading /)", name)
}

// unescapeMessage turns a leading "//" into "/".
func unescapeMessage(text string) string {
	if t := strings.TrimLeft(text, " \t\n"); strings.HasPrefix(t, "//") {
		return t[1:]
	}
	return text
}

// checkpoint returns the checkpoint a /fork or /rewind names.
func (c command) checkpoint() int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(c.args[0], "#"), 10, 64)
	return n
}

// run runs a slash command.
func (s *sessionScreen) run(cmd command) {
	gen, id, cl, ctx := s.gen, s.id, s.c.client(), s.c.ctx
	// async runs a daemon call off the event loop and shows its outcome.
	async := func(call func() (string, error)) {
		later(s, call, func(msg string) {
			if msg != "" {
				s.t.Notice(msg, false)
			}
		})
	}
	switch cmd.name {
	case "/help":
		s.t.Notice(helpText(), false)
	case "/quit":
		s.c.quit()
	case "/vents":
		s.c.showVents()
	case "/sessions":
		s.c.showPicker()
	case "/login":
		s.login()
	case "/model":
		switch len(cmd.args) {
		case 0:
			s.pickModel()
		case 1:
			s.switchModel("", cmd.args[0])
		default:
			s.switchModel(cmd.args[0], cmd.args[1])
		}
	case "/compact":
		full := s.t.Usage.Percent >= contextFullPercent
		async(func() (string, error) {
			raw, err := cl.Command(ctx, id, "/compact", nil)
			if err != nil {
				return "", err
			}
			var res struct {
				Started bool   `json:"started"`
				Reason  string `json:"reason"`
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				return "", fmt.Errorf("read the answer of /compact: %w", err)
			}
			if !res.Started {
				msg := "not compacted: " + res.Reason
				if full {
					msg += "\n" + contextFullHint
				}
				return msg, nil
			}
			return "compacting the earlier conversation…", nil
		})
	case skillCommand:
		s.startSkill(cmd)
	case "/sandbox":
		async(func() (string, error) {
			d, err := cl.Session(ctx, id, 0)
			if err != nil {
				return "", err
			}
			s.post(gen, func() { s.setGlances(d.Glances) })
			return sandboxDetail(findGlance(d.Glances, "sandbox")), nil
		})
	case "/mcp":
		ws := s.info.Workspace
		async(func() (string, error) {
			if len(cmd.args) == 2 && cmd.args[0] == "approve" {
				srv, err := cl.ApproveMCP(ctx, ws, cmd.args[1])
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("approved %s (%s): %s", srv.Name, srv.Source, srv.Runs), nil
			}
			if len(cmd.args) == 2 {
				srv, err := cl.RestartMCP(ctx, ws, cmd.args[1])
				if err != nil {
					return "", err
				}
				return "restarted " + srv.Name + ": its next use starts it", nil
			}
			list, err := cl.MCPServers(ctx, ws)
			if err != nil {
				return "", err
			}
			return mcpDetail(list), nil
		})
	case "/name":
		async(func() (string, error) {
			cfg, err := cl.Rename(ctx, id, cmd.rest)
			if err != nil {
				return "", err
			}
			s.post(gen, func() { s.info.Name = cfg.Name })
			return "this session is now named " + cfg.Name, nil
		})
	case "/workspace":
		path, err := absPath(cmd.rest)
		if err != nil {
			s.t.Notice(err.Error(), true)
			return
		}
		async(func() (string, error) {
			sess, err := cl.MoveWorkspace(ctx, id, path)
			if err != nil {
				return "", err
			}
			s.post(gen, func() { s.info.Workspace, s.t.Workspace = sess.Workspace, sess.Workspace })
			return "this session now works in " + sess.Workspace, nil
		})
	case "/new":
		ws := s.info.Workspace
		s.openMade(func() (wire.Session, error) { return cl.CreateSession(ctx, ws, "") }, func(sess wire.Session) string {
			return fmt.Sprintf("a new session in %s; session %s goes on in the daemon (/sessions lists it)", tildePath(sess.Workspace), id)
		})
	case "/rewind":
		at, mode := cmd.checkpoint(), ""
		if len(cmd.args) == 2 {
			mode = cmd.args[1]
		}
		async(func() (string, error) {
			r, err := cl.Rewind(ctx, id, wire.Rewind{Checkpoint: &at, DryRun: mode == "", Force: mode == "force"})
			if err != nil {
				return "", err
			}
			return rewindNotice(at, r), nil
		})
	case "/diff":
		at := cmd.checkpoint()
		async(func() (string, error) {
			d, err := cl.Diff(ctx, id, wire.DiffRange{From: &at})
			if err != nil {
				return "", err
			}
			return diffNotice(at, d), nil
		})
	case "/fork":
		at := cmd.checkpoint()
		s.openMade(func() (wire.Session, error) { return cl.Fork(ctx, id, at) }, func(fork wire.Session) string {
			return fmt.Sprintf("forked from session %s at #%d: this is the new session %s", id, at, fork.ID)
		})
	}
}

// startSkill sends the text of a "/SKILL TEXT" with the skill's
// instructions (the daemon's /skill); a name that is no skill is an
// unknown command.
func (s *sessionScreen) startSkill(cmd command) {
	gen, id, cl, ctx := s.gen, s.id, s.c.client(), s.c.ctx
	s.setNote("sending…", false)
	go func() {
		raw, err := cl.Command(ctx, id, skillCommand, map[string]string{"skill": cmd.skill, "text": cmd.rest})
		var res wire.SkillStarted
		if err == nil {
			err = json.Unmarshal(raw, &res)
		}
		s.post(gen, func() {
			s.setNote("", false)
			var e *client.Error
			switch {
			case errors.As(err, &e) && e.Code == wire.CodeNotFound:
				s.t.Notice(unknownCommand("/"+cmd.skill).Error()+"; "+e.Message, true)
			case err != nil:
				s.t.Notice(describe(err), true)
			case res.Queued:
				s.setNote(queuedNote, false)
			}
		})
	}()
}

// openMade makes a session off the event loop (a new one, a fork) and
// opens it with a greeting, or shows why it could not be made.
func (s *sessionScreen) openMade(create func() (wire.Session, error), greeting func(wire.Session) string) {
	later(s, create, func(sess wire.Session) {
		s.open(sess.ID)
		s.greeting = greeting(sess)
	})
}

// later runs call off the event loop; back on it, for the same open, a
// failure is shown in the transcript and a success goes to done.
func later[T any](s *sessionScreen, call func() (T, error), done func(T)) {
	gen := s.gen
	go func() {
		v, err := call()
		s.post(gen, func() {
			if err != nil {
				s.t.Notice(describe(err), true)
				return
			}
			done(v)
		})
	}()
}

// contextFullPercent is how full a context is, in percent, for /compact's
// "nothing to compact" to come with what to do instead.
const contextFullPercent = 90

// switchModel moves the session to a provider (its own when empty) and
// model; the daemon makes that the choice of new sessions too.
func (s *sessionScreen) switchModel(provider, model string) {
	id, cl, ctx := s.id, s.c.client(), s.c.ctx
	later(s, func() (wire.ModelChoice, error) { return cl.SwitchModel(ctx, id, provider, model) }, func(choice wire.ModelChoice) {
		s.info.Provider, s.info.Model, s.info.Protocol = choice.Provider, choice.Model, choice.Protocol
		s.t.Notice(fmt.Sprintf("now on %s · %s (%s); new sessions use it too", choice.Provider, choice.Model, choice.Protocol), false)
		s.view.ScrollToEnd()
	})
}

// pickModel shows the session's provider and model and, when the console
// knows the configured providers, a picker of them.
func (s *sessionScreen) pickModel() {
	current := fmt.Sprintf("this session uses %s · %s (%s)", s.info.Provider, s.info.Model, s.info.Protocol)
	if s.c.opts.Providers == nil {
		s.t.Notice(current+"; /model [PROVIDER] MODEL switches it", false)
		return
	}
	gen := s.gen
	go func() {
		list, err := s.c.opts.Providers(s.c.ctx)
		s.post(gen, func() {
			switch {
			case err != nil:
				s.t.Notice(current+"; the providers could not be read: "+describe(err), true)
			case len(list) == 0:
				s.t.Notice(current+"; no provider is configured: /login adds one", false)
			default:
				s.c.models.show(s, list)
			}
		})
	}()
}

// completeCommand completes the name of a slash command from its start:
// the names it may be, and the longest start they share.
func completeCommand(start string) (names []string, common string) {
	for _, c := range commandHelp() {
		name, _, _ := strings.Cut(c.usage, " ")
		if name != "/SKILL" && strings.HasPrefix(name, start) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, start
	}
	common = names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, common) {
			common = common[:len(common)-1]
		}
	}
	return names, common
}

// complete completes the slash command being typed (Tab).
func (s *sessionScreen) complete(start string) {
	names, common := completeCommand(start)
	switch len(names) {
	case 0:
		s.setNote("no command starts with "+start+": /help lists them", true)
	case 1:
		s.input.SetText(common+" ", true)
		s.setNote("", false)
	default:
		s.input.SetText(common, true)
		s.setNote(strings.Join(names, " "), false)
	}
	s.refresh()
}

// absPath makes a path typed by the user absolute, expanding a leading ~.
func absPath(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		dir, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand ~: %w", err)
		}
		p = filepath.Join(dir, p[1:])
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	return abs, nil
}

// helpText is what /help shows.
func helpText() string {
	var b strings.Builder
	b.WriteString("commands:\n")
	for _, c := range commandHelp() {
		fmt.Fprintf(&b, "  %-24s %s\n", c.usage, c.summary)
	}
	b.WriteString("keys:\n")
	for _, k := range keyHelp() {
		fmt.Fprintf(&b, "  %-24s %s\n", k[0], k[1])
	}
	return strings.TrimRight(b.String(), "\n")
}

// keyHelp lists the session screen's keys.
func keyHelp() [][2]string {
	return [][2]string{
		{"Enter", "send the message (queued while the model works)"},
		{"Alt-Enter, Ctrl-J", "new line"},
		{"Up, Down", "recall sent messages"},
		{"Esc, Ctrl-C", "interrupt the running turn (Ctrl-C clears the input when idle)"},
		{"PgUp, PgDn, Shift-Up/Down", "scroll; scrolling to the end follows again"},
		{"Ctrl-T", "show or fold thinking, summaries and long cell output"},
		{"Ctrl-D", "detach: the session goes on in the daemon"},
		{"Tab", "complete a slash command"},
		{"Enter, Ctrl-E, Ctrl-X", "when messages wait after an interrupt: send them now, edit the last, drop the last"},
		{"mouse", "the wheel scrolls; the console holds the mouse, so select text with Shift held, or start albedo with ALBEDO_MOUSE=off"},
	}
}
