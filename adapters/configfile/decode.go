package configfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// document is the shape of config.json that albedo reads. Other members
// are allowed and left alone.
type document struct {
	Active    string                      `json:"active"`
	Providers map[string]providerDocument `json:"providers"`
}

type providerDocument struct {
	BaseURL  string `json:"baseUrl"`
	APIKey   string `json:"apiKey"`
	Model    string `json:"model"`
	Protocol string `json:"protocol"`
	// Reasoning, when set, says whether the model reasons; absent, the
	// model's name decides.
	Reasoning *bool `json:"reasoning"`
	// ThinkTags reads <think>…</think> at the start of answers as thinking.
	ThinkTags bool `json:"thinkTags"`
	// ReasoningContent sends reasoning back within a turn (Chat Completions).
	ReasoningContent bool `json:"reasoningContent"`
	// PromptCacheKey false stops sending the session id as prompt_cache_key.
	PromptCacheKey *bool `json:"promptCacheKey"`
	// ContextWindow is read apart, so that a bad value costs only itself.
	ContextWindow json.RawMessage `json:"contextWindow"`
	// MaxReplyBytes lowers the cap on one reply item or stream event.
	MaxReplyBytes int `json:"maxReplyBytes"`
}

// parse decodes data, the contents of the file at path, checking its
// syntax and the types of the members albedo reads. Errors are EConfig
// errors that give the line and column of the fault.
func parse(path string, data []byte) (document, error) {
	var doc document
	err := json.Unmarshal(data, &doc)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return doc, nil
	case errors.As(err, &syntax):
		// The decoder says the input ended only in this message.
		ended := syntax.Error() == "unexpected end of JSON input"
		line, col := position(data, syntax.Offset, ended)
		return doc, positioned(path, line, col, "%s", syntax.Error())
	case errors.As(err, &typ):
		line, col := position(data, valueStart(data, typ.Offset), false)
		what := "the file"
		if typ.Field != "" {
			what = fmt.Sprintf("%q", typ.Field)
		}
		return doc, positioned(path, line, col, "%s must be %s, not %s", what, kind(typ), typ.Value)
	default:
		return doc, albedo.Errorf(albedo.EConfig, "config file %s: %v", path, err)
	}
}

// kind names the JSON type that the Go type of a type error expects.
func kind(e *json.UnmarshalTypeError) string {
	if e.Type == nil {
		return "another type"
	}
	switch e.Type.Kind().String() {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "bool":
		return "true or false"
	}
	return e.Type.String()
}

// positioned returns an EConfig error about path at line and column.
func positioned(path string, line, col int, format string, args ...any) *albedo.Error {
	e := albedo.Errorf(albedo.EConfig, "config file %s: line %d, column %d: %s", path, line, col, fmt.Sprintf(format, args...))
	e.Details = map[string]any{"path": path, "line": line, "column": col}
	return e
}

// position converts the offset the JSON decoder reports, the count of
// bytes read when it stopped, to the 1-based line and column (in
// characters) of the byte at fault, or of the end of data when ended says
// the fault is that the data ended too soon.
func position(data []byte, offset int64, ended bool) (line, col int) {
	at := len(data)
	if !ended && offset > 0 && offset <= int64(len(data)) {
		at = int(offset) - 1
	}
	line, start := 1, 0
	for i := range at {
		if data[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(data[start:at]) + 1
}

// valueStart turns the offset of a type error, which the decoder reports
// just after a scalar value or just inside a composite one, into the offset
// just after the value's first byte, so that the position names where the
// value starts.
func valueStart(data []byte, offset int64) int64 {
	if offset <= 0 || offset > int64(len(data)) {
		return offset
	}
	at := int(offset) - 1
	switch c := data[at]; {
	case c == '"':
		for i := at - 1; i >= 0; i-- {
			if data[i] != '"' {
				continue
			}
			slashes := 0
			for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
				slashes++
			}
			if slashes%2 == 0 {
				return int64(i) + 1
			}
		}
	case scalar(c):
		for at > 0 && scalar(data[at-1]) {
			at--
		}
		return int64(at) + 1
	}
	return offset
}

// scalar reports whether c can be part of a JSON number or literal.
func scalar(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '+' || c == '-' || c == 'E'
}

// config validates doc and converts it.
func config(path string, doc document) (albedo.Config, error) {
	cfg := albedo.Config{Active: doc.Active, Providers: make(map[string]albedo.ProviderConfig, len(doc.Providers))}
	for _, name := range slices.Sorted(maps.Keys(doc.Providers)) {
		p := doc.Providers[name]
		pc := albedo.ProviderConfig{
			Name: name, BaseURL: p.BaseURL, APIKey: p.APIKey, Model: p.Model, Protocol: albedo.Protocol(p.Protocol),
			Reasoning: p.Reasoning, ThinkTags: p.ThinkTags, ReasoningContent: p.ReasoningContent,
			NoPromptCacheKey: p.PromptCacheKey != nil && !*p.PromptCacheKey,
			MaxReplyBytes:    p.MaxReplyBytes,
		}
		pc.ContextWindow, pc.ContextWindowProblem = contextWindow(path, name, p.ContextWindow)
		if err := validate(pc); err != nil {
			err.Message = fmt.Sprintf("config file %s: %s", path, err.Message)
			err.Code = albedo.EConfig
			err.Details["path"] = path
			return albedo.Config{}, err
		}
		cfg.Providers[name] = pc
	}
	return cfg, nil
}

// validate checks the name, protocol and base URL of p. The error's code
// is EInvalid; its details name the provider and the field at fault.
func validate(p albedo.ProviderConfig) *albedo.Error {
	fault := func(field, format string, args ...any) *albedo.Error {
		e := albedo.Errorf(albedo.EInvalid, format, args...)
		e.Details = map[string]any{"provider": p.Name, "field": field}
		return e
	}
	if p.Name == "" {
		return fault("name", "a provider has an empty name")
	}
	if !p.Protocol.Valid() {
		return fault("protocol", "provider %q: \"protocol\" must be %q or %q, not %q",
			p.Name, albedo.ProtocolResponses, albedo.ProtocolChatCompletions, p.Protocol)
	}
	if u, err := url.Parse(p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fault("baseUrl", "provider %q: \"baseUrl\" must be an absolute http or https URL, not %q", p.Name, p.BaseURL)
	}
	if p.MaxReplyBytes < 0 {
		return fault("maxReplyBytes", "provider %q: \"maxReplyBytes\" must be a positive number of bytes, not %d", p.Name, p.MaxReplyBytes)
	}
	return nil
}

// contextWindow reads a provider's "contextWindow": a positive whole
// number of tokens. Anything else is ignored, and problem says so.
func contextWindow(path, provider string, raw json.RawMessage) (window int64, problem string) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, ""
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil || n <= 0 {
		return 0, fmt.Sprintf("config file %s: provider %q: \"contextWindow\" must be a positive whole number of tokens, not %s; it is ignored",
			path, provider, raw)
	}
	return n, ""
}
