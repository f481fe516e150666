package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Defaults of a server's timeouts.
const (
	// DefaultStartupTimeout bounds a server's start and its first listing of
	// tools: npx may fetch a package first.
	DefaultStartupTimeout = 30 * time.Second
	// DefaultCallTimeout bounds one tool call.
	DefaultCallTimeout = 60 * time.Second
	// DefaultListWait is how long a turn waits, from when it began, for a
	// listing of a server's tools (its start included) before its first
	// request goes out without them.
	DefaultListWait = 5 * time.Second
)

// Config is the "mcp" section of extensions.json.
type Config struct {
	// Servers are the servers that parsed, by name.
	Servers map[string]ServerConfig
	// Problems say, one a line, what was wrong with the section or a server;
	// a server with a problem is left out of Servers, the others serve.
	Problems []string
}

// ServerConfig is one server of the "mcp" section: a stdio command or a
// streamable HTTP endpoint.
type ServerConfig struct {
	// Name is the server's key in mcp.servers.
	Name string
	// Command, Args and Cwd start a stdio server; Cwd empty means the
	// workspace.
	Command string
	Args    []string
	Cwd     string
	// Env are variables set for a stdio server, on top of the filtered
	// environment every server gets. Values may name the daemon's
	// variables as ${NAME} (see Expand).
	Env map[string]string
	// URL is a streamable HTTP server's endpoint: https, or http on a
	// loopback address.
	URL string
	// Headers are sent with every HTTP request, ${NAME} expanded as Env.
	Headers map[string]string
	// StartupTimeout and CallTimeout bound the start and each call.
	StartupTimeout, CallTimeout time.Duration
	// ListWait is how long a turn waits for a listing of the server's
	// tools from when that listing began; a listing still under way then
	// goes on, and its tools are offered from a later turn.
	ListWait time.Duration
	// EnabledTools, when not empty, are the only tools offered;
	// DisabledTools are never offered.
	EnabledTools, DisabledTools []string
	// Sandbox is how a stdio server is confined: SandboxWorkspaceWrite
	// (the default), SandboxReadOnly or SandboxOff.
	Sandbox string
}

// A stdio server's sandbox modes, as the kernel's: it may write its
// workspace and its caches, or only its caches, or it is not confined.
const (
	SandboxWorkspaceWrite = "workspace-write"
	SandboxReadOnly       = "read-only"
	SandboxOff            = "off"
)

// Stdio reports whether the server is a command albedo starts.
func (c ServerConfig) Stdio() bool { return c.Command != "" }

// Offers reports whether the configuration lets the model see the tool.
func (c ServerConfig) Offers(tool string) bool {
	if slices.Contains(c.DisabledTools, tool) {
		return false
	}
	return len(c.EnabledTools) == 0 || slices.Contains(c.EnabledTools, tool)
}

// serverFile is the JSON of one server as written in extensions.json.
type serverFile struct {
	Type             string            `json:"type"`
	Command          string            `json:"command"`
	Args             []string          `json:"args"`
	Cwd              string            `json:"cwd"`
	Env              map[string]string `json:"env"`
	URL              string            `json:"url"`
	Headers          map[string]string `json:"headers"`
	StartupTimeoutMs *int64            `json:"startupTimeoutMs"`
	CallTimeoutMs    *int64            `json:"callTimeoutMs"`
	ListWaitMs       *int64            `json:"listWaitMs"`
	EnabledTools     []string          `json:"enabledTools"`
	DisabledTools    []string          `json:"disabledTools"`
	Enabled          *bool             `json:"enabled"`
	Sandbox          string            `json:"sandbox"`
}

// ParseConfig reads the "mcp" section of extensions.json (nil or empty for
// none). It never fails: what is wrong is reported in Problems and the
// server concerned left out.
func ParseConfig(section json.RawMessage) Config {
	cfg := Config{Servers: map[string]ServerConfig{}}
	if len(bytes.TrimSpace(section)) == 0 || string(bytes.TrimSpace(section)) == "null" {
		return cfg
	}
	var file struct {
		Servers map[string]json.RawMessage `json:"servers"`
	}
	if err := strictDecode(section, &file); err != nil {
		cfg.Problems = append(cfg.Problems, "mcp: "+err.Error()+"; no MCP server configured")
		return cfg
	}
	names := make([]string, 0, len(file.Servers))
	for name := range file.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		server, enabled, err := parseServer(name, file.Servers[name])
		if err != nil {
			cfg.Problems = append(cfg.Problems, fmt.Sprintf("mcp.servers.%s: %v; the server is left out", name, err))
			continue
		}
		if enabled {
			cfg.Servers[name] = server
		}
	}
	return cfg
}

// parseServer checks one server's JSON, and says whether it is enabled.
func parseServer(name string, raw json.RawMessage) (ServerConfig, bool, error) {
	if err := checkServerName(name); err != nil {
		return ServerConfig{}, false, err
	}
	var f serverFile
	if err := strictDecode(raw, &f); err != nil {
		return ServerConfig{}, false, err
	}
	return checkServer(name, f)
}

// checkServer turns one server's settings into its configuration, and
// says whether it is enabled.
func checkServer(name string, f serverFile) (ServerConfig, bool, error) {
	c := ServerConfig{
		Name: name, Command: f.Command, Args: f.Args, Cwd: f.Cwd, Env: f.Env,
		URL: f.URL, Headers: f.Headers,
		StartupTimeout: DefaultStartupTimeout, CallTimeout: DefaultCallTimeout, ListWait: DefaultListWait,
		EnabledTools: f.EnabledTools, DisabledTools: f.DisabledTools,
	}
	if f.Command != "" {
		c.Sandbox = SandboxWorkspaceWrite
	}
	switch {
	case f.Command != "" && f.URL != "":
		return c, false, fmt.Errorf("both command and url are set; a server is one or the other")
	case f.Command == "" && f.URL == "":
		return c, false, fmt.Errorf("neither command nor url is set")
	}
	switch f.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	default:
		return c, false, fmt.Errorf("type %q is not stdio or http (streamable HTTP)", f.Type)
	}
	if f.URL != "" {
		if err := checkURL(f.URL); err != nil {
			return c, false, err
		}
		if len(f.Args) > 0 || f.Cwd != "" || len(f.Env) > 0 {
			return c, false, fmt.Errorf("args, cwd and env are for a command; an HTTP server takes url and headers")
		}
	} else if len(f.Headers) > 0 {
		return c, false, fmt.Errorf("headers are for an HTTP server (url)")
	}
	switch f.Sandbox {
	case "":
	case SandboxWorkspaceWrite, SandboxReadOnly, SandboxOff:
		if f.URL != "" {
			return c, false, fmt.Errorf("sandbox is for a command; an HTTP server runs elsewhere")
		}
		c.Sandbox = f.Sandbox
	default:
		return c, false, fmt.Errorf("sandbox %q is not workspace-write, read-only or off", f.Sandbox)
	}
	var err error
	if c.StartupTimeout, err = millis("startupTimeoutMs", f.StartupTimeoutMs, DefaultStartupTimeout); err != nil {
		return c, false, err
	}
	if c.CallTimeout, err = millis("callTimeoutMs", f.CallTimeoutMs, DefaultCallTimeout); err != nil {
		return c, false, err
	}
	if c.ListWait, err = millis("listWaitMs", f.ListWaitMs, DefaultListWait); err != nil {
		return c, false, err
	}
	if err := checkEnv(f.Env); err != nil {
		return c, false, err
	}
	if err := checkHeaders(f.Headers); err != nil {
		return c, false, err
	}
	return c, f.Enabled == nil || *f.Enabled, nil
}

// strictDecode decodes raw into v, refusing unknown members: a misspelt
// setting is reported rather than ignored.
func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not valid: %w", err)
	}
	return nil
}

// checkServerName refuses names that cannot be told apart in a tool's
// "server/tool" reference.
func checkServerName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("a server needs a name")
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("a server's name may not hold / (the Python binding calls tools as \"server/tool\")")
	}
	return nil
}

// checkURL allows https anywhere and http on loopback only: a token in a
// header must not cross a network in the clear.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q is not a URL: %w", raw, err)
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return fmt.Errorf("url %q names no host", raw)
		}
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("url %q is plain http to a host that is not loopback; use https", raw)
	}
	return fmt.Errorf("url %q is not https (or http on a loopback address)", raw)
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// millis turns a timeout in milliseconds into a duration, def when unset.
func millis(name string, v *int64, def time.Duration) (time.Duration, error) {
	if v == nil {
		return def, nil
	}
	if *v <= 0 || *v > 24*60*60*1000 {
		return 0, fmt.Errorf("%s %d is not a positive number of milliseconds up to a day", name, *v)
	}
	return time.Duration(*v) * time.Millisecond, nil
}

// envName is what a variable's name may be.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkEnv refuses names a server may not be given and secrets written
// inline.
func checkEnv(env map[string]string) error {
	for _, name := range sortedKeys(env) {
		value := env[name]
		switch {
		case !envName.MatchString(name):
			return fmt.Errorf("env name %q is not a variable name", name)
		case strings.HasPrefix(strings.ToUpper(name), "ALBEDO_"):
			return fmt.Errorf("env %s: ALBEDO_* variables are albedo's own and never reach a server", name)
		}
		if err := checkValue("env "+name, value, secretVariable(name)); err != nil {
			return err
		}
	}
	return nil
}

// checkHeaders refuses header values holding a credential inline.
func checkHeaders(headers map[string]string) error {
	for _, name := range sortedKeys(headers) {
		if err := checkValue("header "+name, headers[name], secretHeader(name)); err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks the ${NAME} references in a value, and that a secret
// is given by reference only.
func checkValue(what, value string, secret bool) error {
	refs, err := references(value)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if secret && len(refs) == 0 && value != "" {
		return fmt.Errorf("%s holds a secret written inline; name the variable holding it instead, as ${VARIABLE}", what)
	}
	return nil
}

// secretVariable reports whether a variable's name says it holds a secret.
func secretVariable(name string) bool {
	upper := strings.ToUpper(name)
	for _, suffix := range []string{"_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_KEY"} {
		if strings.HasSuffix(upper, suffix) || upper == strings.TrimPrefix(suffix, "_") {
			return true
		}
	}
	return false
}

// secretHeader reports whether an HTTP header's name says it carries a
// credential.
func secretHeader(name string) bool {
	lower := strings.ToLower(name)
	if lower == "authorization" || lower == "proxy-authorization" || lower == "cookie" {
		return true
	}
	for _, suffix := range []string{"key", "token", "secret", "password"} {
		if strings.HasSuffix(lower, suffix) {
			return true
		}
	}
	return false
}

// sortedKeys returns m's keys in order, so problems come out the same way
// every time.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
