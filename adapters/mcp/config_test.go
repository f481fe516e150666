package mcp

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		section string
		servers []string // the servers that parsed
		problem string   // part of the only problem, "" for none
	}{
		{"no section", ``, nil, ""},
		{"a stdio and an https server", `{"servers":{"gh":{"command":"npx","args":["-y","x"],"env":{"GITHUB_TOKEN":"${GITHUB_TOKEN}"}},"web":{"url":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer ${WEB_TOKEN}"}}}}`,
			[]string{"gh", "web"}, ""},
		{"http on loopback", `{"servers":{"local":{"url":"http://127.0.0.1:8931/mcp"},"named":{"url":"http://localhost:1/mcp"},"v6":{"url":"http://[::1]:2/mcp"}}}`,
			[]string{"local", "named", "v6"}, ""},
		{"plain http elsewhere is refused", `{"servers":{"far":{"url":"http://mcp.example.com/mcp"},"ok":{"command":"x"}}}`,
			[]string{"ok"}, "plain http to a host that is not loopback"},
		{"another scheme is refused", `{"servers":{"f":{"url":"ftp://x/"}}}`, nil, "is not https"},
		{"a disabled server is left out quietly", `{"servers":{"off":{"command":"x","enabled":false}}}`, nil, ""},
		{"both command and url", `{"servers":{"b":{"command":"x","url":"https://x"}}}`, nil, "both command and url"},
		{"neither", `{"servers":{"n":{"args":["x"]}}}`, nil, "neither command nor url"},
		{"a misspelt setting", `{"servers":{"m":{"comand":"x"}}}`, nil, `unknown field "comand"`},
		{"a misspelt section member", `{"server":{}}`, nil, `unknown field "server"`},
		{"a token inline", `{"servers":{"s":{"command":"x","env":{"GITHUB_TOKEN":"ghp_abc"}}}}`, nil, "secret written inline"},
		{"an authorization header inline", `{"servers":{"s":{"url":"https://x","headers":{"Authorization":"Bearer abc"}}}}`, nil, "secret written inline"},
		{"an api key header inline", `{"servers":{"s":{"url":"https://x","headers":{"X-Api-Key":"abc"}}}}`, nil, "secret written inline"},
		{"an ordinary value inline is fine", `{"servers":{"s":{"command":"x","env":{"LOG_LEVEL":"debug"},"cwd":"tools"}}}`, []string{"s"}, ""},
		{"albedo's own variables never reach a server", `{"servers":{"s":{"command":"x","env":{"ALBEDO_HOME":"/x"}}}}`, nil, "albedo's own"},
		{"nor through a reference", `{"servers":{"s":{"command":"x","env":{"H":"${ALBEDO_HOME}"}}}}`, nil, "albedo's own"},
		{"a malformed reference", `{"servers":{"s":{"command":"x","env":{"H":"${1X}"}}}}`, nil, "does not name a variable"},
		{"an unclosed reference", `{"servers":{"s":{"command":"x","env":{"H":"${X"}}}}`, nil, "unclosed"},
		{"a bad timeout", `{"servers":{"s":{"command":"x","callTimeoutMs":0}}}`, nil, "callTimeoutMs 0"},
		{"a bad listing wait", `{"servers":{"s":{"command":"x","listWaitMs":-1}}}`, nil, "listWaitMs -1"},
		{"an unknown sandbox mode", `{"servers":{"s":{"command":"x","sandbox":"none"}}}`, nil, "is not workspace-write, read-only or off"},
		{"a sandbox for an HTTP server", `{"servers":{"s":{"url":"https://x","sandbox":"off"}}}`, nil, "sandbox is for a command"},
		{"a slash in a name", `{"servers":{"a/b":{"command":"x"}}}`, nil, "may not hold /"},
		{"headers on a command", `{"servers":{"s":{"command":"x","headers":{"A":"b"}}}}`, nil, "headers are for an HTTP server"},
		{"env on a url", `{"servers":{"s":{"url":"https://x","env":{"A":"b"}}}}`, nil, "args, cwd and env are for a command"},
		{"an unknown type", `{"servers":{"s":{"type":"sse","url":"https://x"}}}`, nil, `type "sse"`},
		{"not an object", `[1]`, nil, "no MCP server configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ParseConfig([]byte(tt.section))
			var got []string
			for name := range cfg.Servers {
				got = append(got, name)
			}
			if len(got) != len(tt.servers) {
				t.Errorf("servers %v; want %v (problems %q)", got, tt.servers, cfg.Problems)
			}
			for _, name := range tt.servers {
				if _, ok := cfg.Servers[name]; !ok {
					t.Errorf("server %s missing (problems %q)", name, cfg.Problems)
				}
			}
			switch {
			case tt.problem == "" && len(cfg.Problems) > 0:
				t.Errorf("problems %q; want none", cfg.Problems)
			case tt.problem != "" && (len(cfg.Problems) != 1 || !strings.Contains(cfg.Problems[0], tt.problem)):
				t.Errorf("problems %q; want one saying %q", cfg.Problems, tt.problem)
			}
		})
	}
}

func TestParseConfigReadsEverySetting(t *testing.T) {
	cfg := ParseConfig([]byte(`{"servers":{"s":{"type":"stdio","command":"srv","args":["a"],"cwd":"/w","env":{"K":"v"},
		"startupTimeoutMs":1500,"callTimeoutMs":250,"listWaitMs":700,"enabledTools":["x","y"],"disabledTools":["y"],"sandbox":"read-only"}}}`))
	want := ServerConfig{Name: "s", Command: "srv", Args: []string{"a"}, Cwd: "/w", Env: map[string]string{"K": "v"},
		StartupTimeout: 1500 * time.Millisecond, CallTimeout: 250 * time.Millisecond, ListWait: 700 * time.Millisecond,
		EnabledTools: []string{"x", "y"}, DisabledTools: []string{"y"}, Sandbox: SandboxReadOnly}
	if got := cfg.Servers["s"]; !reflect.DeepEqual(got, want) {
		t.Errorf("server = %+v\nwant %+v", got, want)
	}
	if s := cfg.Servers["s"]; !s.Offers("x") || s.Offers("y") || s.Offers("z") {
		t.Error("Offers does not follow enabledTools and disabledTools")
	}
	defaults := ParseConfig([]byte(`{"servers":{"d":{"command":"srv"}}}`)).Servers["d"]
	if defaults.StartupTimeout != DefaultStartupTimeout || defaults.Sandbox != SandboxWorkspaceWrite || defaults.CallTimeout != DefaultCallTimeout || defaults.ListWait != DefaultListWait || !defaults.Offers("any") {
		t.Errorf("defaults = %+v", defaults)
	}
}

func TestExpand(t *testing.T) {
	vars := lookup(map[string]string{"A": "1", "EMPTY": ""})
	for in, want := range map[string]string{"": "", "x": "x", "${A}": "1", "Bearer ${A}${A}": "Bearer 11", "${EMPTY}": ""} {
		if got, err := Expand(in, vars); err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Expand("${A} ${MISSING} ${GONE}", vars); err == nil || !strings.Contains(err.Error(), "MISSING, GONE is not set") {
		t.Errorf("Expand with missing variables = %v", err)
	}
}
