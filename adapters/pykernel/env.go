package pykernel

import "strings"

// defaultPath is the PATH of a kernel whose base environment has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// kernelEnv returns the variables of base a kernel may see (envAllowed), in
// base's order, the last of duplicates winning, and a PATH.
func kernelEnv(base []string) []string {
	env := make([]string, 0, 16)
	index := make(map[string]int)
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || !envAllowed(name) {
			continue
		}
		if i, seen := index[name]; seen {
			env[i] = kv
			continue
		}
		index[name] = len(env)
		env = append(env, kv)
	}
	if _, ok := index["PATH"]; !ok {
		env = append(env, "PATH="+defaultPath)
	}
	return env
}

// Environment returns the variables of base a kernel may see, with a
// PATH: what else albedo starts for the model (an MCP server) starts
// with.
func Environment(base []string) []string { return kernelEnv(base) }

// envAllowed reports whether a kernel may see the variable name. Denied
// first, whatever the list below says: ALBEDO_* and names ending in
// _API_KEY, _TOKEN, _SECRET or _PASSWORD (in any case). Allowed then: LC_*
// and the names listed.
func envAllowed(name string) bool {
	upper := strings.ToUpper(name)
	if strings.HasPrefix(upper, "ALBEDO_") ||
		strings.HasSuffix(upper, "_API_KEY") ||
		strings.HasSuffix(upper, "_TOKEN") ||
		strings.HasSuffix(upper, "_SECRET") ||
		strings.HasSuffix(upper, "_PASSWORD") {
		return false
	}
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	switch name {
	case
		// Where things are and who runs them.
		"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TMP", "TEMP", "TZ",
		"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
		// Language and terminal.
		"LANG", "LANGUAGE", "TERM", "COLORTERM", "NO_COLOR",
		// Python and its environments.
		"PYTHONPATH", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE",
		"PYTHONPYCACHEPREFIX", "PYTHONWARNINGS", "PYTHONHASHSEED", "MPLBACKEND",
		"VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_VERSION", "PYENV_ROOT",
		// Certificates and proxies, for tools that reach the network.
		"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
		"http_proxy", "https_proxy", "no_proxy", "all_proxy",
		// Toolchains a cell may run.
		"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME":
		return true
	}
	return false
}
