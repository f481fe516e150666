package configfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// write puts contents at a fresh config.json and returns its path.
func write(t *testing.T, contents string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(contents), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const valid = `{
  "active": "alpha",
  "providers": {
    "alpha": {"baseUrl": "http://127.0.0.1:9/alpha/v1", "apiKey": "alpha-1", "model": "fixture-alpha", "protocol": "responses"},
    "beta": {"baseUrl": "https://api.example.com/v1", "apiKey": "", "model": "m", "protocol": "chat_completions"}
  }
}`

func TestLoad(t *testing.T) {
	tests := []struct {
		name     string
		contents *string
		want     albedo.Config
	}{
		{
			name:     "two providers",
			contents: ptr(valid),
			want: albedo.Config{Active: "alpha", Providers: map[string]albedo.ProviderConfig{
				"alpha": {Name: "alpha", BaseURL: "http://127.0.0.1:9/alpha/v1", APIKey: "alpha-1", Model: "fixture-alpha", Protocol: albedo.ProtocolResponses},
				"beta":  {Name: "beta", BaseURL: "https://api.example.com/v1", Model: "m", Protocol: albedo.ProtocolChatCompletions},
			}},
		},
		{
			name: "provider settings for real servers",
			contents: ptr(`{"providers": {
				"deepseek": {"baseUrl": "https://api.deepseek.com", "model": "deepseek-reasoner", "protocol": "chat_completions", "reasoningContent": true, "promptCacheKey": false},
				"local": {"baseUrl": "http://127.0.0.1:8080/v1", "model": "qwq", "protocol": "chat_completions", "thinkTags": true, "promptCacheKey": true},
				"proxy": {"baseUrl": "https://proxy.example/v1", "model": "my-gpt5", "protocol": "responses", "reasoning": true},
				"plain": {"baseUrl": "https://api.example/v1", "model": "gpt-5", "protocol": "responses", "reasoning": false}
			}}`),
			want: albedo.Config{Providers: map[string]albedo.ProviderConfig{
				"deepseek": {Name: "deepseek", BaseURL: "https://api.deepseek.com", Model: "deepseek-reasoner", Protocol: albedo.ProtocolChatCompletions, ReasoningContent: true, NoPromptCacheKey: true},
				"local":    {Name: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: "qwq", Protocol: albedo.ProtocolChatCompletions, ThinkTags: true},
				"proxy":    {Name: "proxy", BaseURL: "https://proxy.example/v1", Model: "my-gpt5", Protocol: albedo.ProtocolResponses, Reasoning: new(true)},
				"plain":    {Name: "plain", BaseURL: "https://api.example/v1", Model: "gpt-5", Protocol: albedo.ProtocolResponses, Reasoning: new(false)},
			}},
		},
		{name: "missing file", want: albedo.Config{Providers: map[string]albedo.ProviderConfig{}}},
		{name: "blank file", contents: ptr(" \n"), want: albedo.Config{Providers: map[string]albedo.ProviderConfig{}}},
		{name: "null", contents: ptr("null"), want: albedo.Config{Providers: map[string]albedo.ProviderConfig{}}},
		{name: "no providers", contents: ptr(`{"providers": {}}`), want: albedo.Config{Providers: map[string]albedo.ProviderConfig{}}},
		{
			name:     "active names a missing provider",
			contents: ptr(`{"active": "gone", "extra": [1, {"x": null}]}`),
			want:     albedo.Config{Active: "gone", Providers: map[string]albedo.ProviderConfig{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if tt.contents != nil {
				path = write(t, *tt.contents)
			}
			got, err := New(path).Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestLoadFaults(t *testing.T) {
	tests := []struct {
		name     string
		contents string
		want     string
		line     int
		column   int
	}{
		{"bad value", "{\n  \"active\": x\n}", "line 2, column 13: invalid character 'x'", 2, 13},
		{"trailing comma", "{\"active\": \"a\",\n}", "line 2, column 1: invalid character '}'", 2, 1},
		{"cut short", "{\n  \"providers\": {\n", "line 3, column 1: unexpected end of JSON input", 3, 1},
		{"data after the object", "{}\nx", "line 2, column 1: invalid character 'x' after top-level value", 2, 1},
		{"columns count characters", "{\"é\": 1, \"a\": ?}", "line 1, column 15: invalid character '?'", 1, 15},
		{"crlf", "{\r\n\"a\": 1,\r\n\"b\" 2}", "line 3, column 5: invalid character '2'", 3, 5},
		{"wrong type", "{\n  \"active\": 5\n}", `line 2, column 13: "active" must be a string, not number`, 2, 13},
		{"providers not an object", `{"providers": []}`, `line 1, column 15: "providers" must be an object, not array`, 1, 15},
		{"field of a provider", "{\"providers\": {\"a\": {\n\"baseUrl\": true}}}", `line 2, column 12: "providers.baseUrl" must be a string, not bool`, 2, 12},
		{"setting that is not a boolean", "{\"providers\": {\"a\": {\"thinkTags\": \"yes\"}}}", `line 1, column 35: "providers.thinkTags" must be true or false, not string`, 1, 35},
		{"string for an object", "{\"providers\": {\"a\": \"x\\\"y\"}}", `line 1, column 21: "providers" must be an object, not string`, 1, 21},
		{"long number", "{\"active\": -12.5e+3}", `line 1, column 12: "active" must be a string, not number`, 1, 12},
		{"not an object", `[1]`, `line 1, column 1: the file must be an object, not array`, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, tt.contents)
			e := loadFails(t, path)
			if !strings.HasPrefix(e.Message, "config file "+path+": ") || !strings.Contains(e.Message, tt.want) {
				t.Errorf("message %q does not name %s and contain %q", e.Message, path, tt.want)
			}
			if e.Details["line"] != tt.line || e.Details["column"] != tt.column || e.Details["path"] != path {
				t.Errorf("details = %v", e.Details)
			}
		})
	}
}

// loadFails loads the file at path and returns the EConfig error it must
// fail with.
func loadFails(t *testing.T, path string) *albedo.Error {
	t.Helper()
	_, err := New(path).Load(context.Background())
	var e *albedo.Error
	if !errors.As(err, &e) || e.Code != albedo.EConfig {
		t.Fatalf("err = %#v, want an EConfig error", err)
	}
	return e
}

func TestLoadInvalidProvider(t *testing.T) {
	provider := func(baseURL, protocol string) string {
		return fmt.Sprintf(`{"providers": {"ok": {"baseUrl": "http://h", "protocol": "responses"}, "bad": {"baseUrl": %q, "protocol": %q}}}`, baseURL, protocol)
	}
	tests := []struct {
		name     string
		contents string
		field    string
		want     string
	}{
		{"unknown protocol", provider("http://h/v1", "completions"), "protocol", `provider "bad": "protocol" must be "responses" or "chat_completions", not "completions"`},
		{"missing protocol", provider("http://h/v1", ""), "protocol", `not ""`},
		{"relative URL", provider("/v1", "responses"), "baseUrl", `provider "bad": "baseUrl" must be an absolute http or https URL, not "/v1"`},
		{"other scheme", provider("ws://h/v1", "responses"), "baseUrl", `not "ws://h/v1"`},
		{"no host", provider("http:///v1", "responses"), "baseUrl", `not "http:///v1"`},
		{"null entry", `{"providers": {"bad": null}}`, "protocol", `provider "bad"`},
		{"empty name", `{"providers": {"": {"baseUrl": "http://h", "protocol": "responses"}}}`, "name", "empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, tt.contents)
			e := loadFails(t, path)
			if !strings.Contains(e.Message, path) || !strings.Contains(e.Message, tt.want) {
				t.Errorf("message %q lacks %q", e.Message, tt.want)
			}
			if e.Details["field"] != tt.field {
				t.Errorf("details = %v", e.Details)
			}
		})
	}
}

func TestLoadHalfWritten(t *testing.T) {
	tests := []struct {
		name  string
		first string
	}{
		{"cut short", valid[:40]},
		{"blank", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, tt.first)
			f := New(path)
			// The writer finishes while Load waits to read again, however
			// long the machine takes to get there.
			pauses := 0
			f.pause = func(context.Context) error {
				pauses++
				if pauses == 1 {
					return os.WriteFile(path, []byte(valid), 0o600)
				}
				return nil
			}
			cfg, err := f.Load(context.Background())
			if pauses != 1 {
				t.Errorf("Load paused %d times, want once: it must read again after the writer finished", pauses)
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Active != "alpha" || len(cfg.Providers) != 2 {
				t.Errorf("got %+v", cfg)
			}
		})
	}
}

func TestLoadGivesUpAfterTheWindow(t *testing.T) {
	path := write(t, valid[:40])
	start := time.Now()
	_, err := New(path).Load(context.Background())
	if albedo.ErrorCode(err) != albedo.EConfig {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d < settleWindow {
		t.Errorf("gave up after %v, before the %v window", d, settleWindow)
	}
	// A type fault cannot be a file caught mid-write: it is reported as
	// such, not as a file that never settled.
	path = write(t, `{"active": 1}`)
	if _, err := New(path).Load(context.Background()); albedo.ErrorCode(err) != albedo.EConfig || strings.Contains(err.Error(), "settle") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(write(t, valid)).Load(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestLoadSeesEveryRewrite(t *testing.T) {
	// Rewrites within the same second, even of the same size, are seen.
	path := write(t, `{"active": "a"}`)
	f := New(path)
	for _, active := range []string{"b", "c", "d"} {
		if err := os.WriteFile(path, []byte(`{"active": "`+active+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.Load(context.Background())
		if err != nil || cfg.Active != active {
			t.Fatalf("got %+v, %v; want active %q", cfg, err, active)
		}
	}
}

// entries returns the directory's file names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// decoded reads path as generic JSON.
func decoded(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return v
}

const withExtras = `{
  "version": 3,
  "active": "alpha",
  "ui": {"theme": "dark", "tabs": [1, 2]},
  "providers": {
    "alpha": {"baseUrl": "http://h/alpha", "apiKey": "k1", "model": "m1", "protocol": "responses", "headers": {"X-Team": "a&b"}},
    "beta": {"baseUrl": "http://h/beta", "apiKey": "k2", "model": "m2", "protocol": "chat_completions", "note": "<keep>"}
  },
  "zeta": null
}`

func TestSetActiveModel(t *testing.T) {
	path := write(t, withExtras)
	f := New(path)
	if err := f.SetActiveModel(context.Background(), "beta", "m2-large"); err != nil {
		t.Fatal(err)
	}
	got := decoded(t, path)
	var want map[string]any
	_ = json.Unmarshal([]byte(withExtras), &want)
	want["active"] = "beta"
	want["providers"].(map[string]any)["beta"].(map[string]any)["model"] = "m2-large"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	data, _ := os.ReadFile(path)
	text := string(data)
	// Members keep their order and their characters.
	order := []string{`"version"`, `"active"`, `"ui"`, `"providers"`, `"alpha": {`, `"headers"`, `"beta": {`, `"note"`, `"zeta"`}
	last := -1
	for _, key := range order {
		i := strings.Index(text, key)
		if i <= last {
			t.Fatalf("%s out of order in\n%s", key, text)
		}
		last = i
	}
	mustContain(t, text, `"a&b"`, `"<keep>"`)
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v", info.Mode(), err)
	}
	if names := entries(t, filepath.Dir(path)); !reflect.DeepEqual(names, []string{"config.json"}) {
		t.Errorf("directory holds %v", names)
	}
	cfg, err := f.Load(context.Background())
	if err != nil || cfg.Active != "beta" || cfg.Providers["beta"].Model != "m2-large" || cfg.Providers["alpha"].Model != "m1" {
		t.Errorf("reloaded %+v, %v", cfg, err)
	}
}

func TestSetActiveModelFaults(t *testing.T) {
	tests := []struct {
		name     string
		contents *string
		provider string
		code     string
		want     string
	}{
		{"unknown provider", ptr(withExtras), "gamma", albedo.EConflict, `unknown provider "gamma"`},
		{"missing file", nil, "alpha", albedo.EConflict, `unknown provider "alpha"`},
		{"broken file", ptr(`{"providers": {"alpha": {}},`), "alpha", albedo.EConfig, "line 1, column 29: unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if tt.contents != nil {
				path = write(t, *tt.contents)
			}
			err := New(path).SetActiveModel(context.Background(), tt.provider, "m")
			if albedo.ErrorCode(err) != tt.code {
				t.Fatalf("err = %v (code %q), want code %q", err, albedo.ErrorCode(err), tt.code)
			}
			mustContain(t, err.Error(), tt.want)
			var after *string
			if data, err := os.ReadFile(path); err == nil {
				after = ptr(string(data))
			}
			if !reflect.DeepEqual(after, tt.contents) {
				t.Errorf("file changed to %v", after)
			}
		})
	}
}

func TestSaveProvider(t *testing.T) {
	gamma := albedo.ProviderConfig{Name: "gamma", BaseURL: "https://g.example/v1?a=1&b=2", APIKey: "k3", Model: "g1", Protocol: albedo.ProtocolChatCompletions}
	tests := []struct {
		name     string
		contents *string
		p        albedo.ProviderConfig
		activate bool
		active   string
		check    func(t *testing.T, doc map[string]any)
	}{
		{
			name: "new file", p: gamma, activate: true, active: "gamma",
			check: func(t *testing.T, doc map[string]any) {
				want := map[string]any{"active": "gamma", "providers": map[string]any{"gamma": map[string]any{
					"baseUrl": "https://g.example/v1?a=1&b=2", "apiKey": "k3", "model": "g1", "protocol": "chat_completions"}}}
				if !reflect.DeepEqual(doc, want) {
					t.Errorf("got %v", doc)
				}
			},
		},
		{
			name: "added without activation", contents: ptr(withExtras), p: gamma, active: "alpha",
			check: func(t *testing.T, doc map[string]any) {
				providers := doc["providers"].(map[string]any)
				if len(providers) != 3 || doc["version"] != 3.0 || doc["ui"] == nil {
					t.Errorf("got %v", doc)
				}
			},
		},
		{
			name: "replaced, keeping its other members", contents: ptr(withExtras), activate: true, active: "alpha",
			p: albedo.ProviderConfig{Name: "alpha", BaseURL: "http://new/v1", APIKey: "k9", Model: "m9", Protocol: albedo.ProtocolChatCompletions},
			check: func(t *testing.T, doc map[string]any) {
				want := map[string]any{"baseUrl": "http://new/v1", "apiKey": "k9", "model": "m9", "protocol": "chat_completions", "headers": map[string]any{"X-Team": "a&b"}}
				if got := doc["providers"].(map[string]any)["alpha"]; !reflect.DeepEqual(got, want) {
					t.Errorf("alpha = %v", got)
				}
			},
		},
		{
			name: "replacing a broken provider", contents: ptr(`{"active": "x", "providers": {"x": {"protocol": "nope"}}}`),
			p: albedo.ProviderConfig{Name: "x", BaseURL: "http://x", Protocol: albedo.ProtocolResponses}, active: "x",
			check: func(t *testing.T, doc map[string]any) {},
		},
		{
			name: "replacing a provider with a member of the wrong type", contents: ptr(`{"active": "x", "providers": {"x": {"apiKey": 5}}}`),
			p: albedo.ProviderConfig{Name: "x", BaseURL: "http://x", APIKey: "k", Protocol: albedo.ProtocolResponses}, active: "x",
			check: func(t *testing.T, doc map[string]any) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "home", "config.json")
			if tt.contents != nil {
				path = write(t, *tt.contents)
			}
			f := New(path)
			if err := f.SaveProvider(context.Background(), tt.p, tt.activate); err != nil {
				t.Fatal(err)
			}
			tt.check(t, decoded(t, path))
			cfg, err := f.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Active != tt.active || !reflect.DeepEqual(cfg.Providers[tt.p.Name], tt.p) {
				t.Errorf("reloaded active %q, %+v", cfg.Active, cfg.Providers[tt.p.Name])
			}
			if names := entries(t, filepath.Dir(path)); !reflect.DeepEqual(names, []string{"config.json"}) {
				t.Errorf("directory holds %v", names)
			}
		})
	}
}

func TestSaveProviderRejects(t *testing.T) {
	tests := []struct {
		name  string
		p     albedo.ProviderConfig
		field string
	}{
		{"no name", albedo.ProviderConfig{BaseURL: "http://h", Protocol: albedo.ProtocolResponses}, "name"},
		{"bad protocol", albedo.ProviderConfig{Name: "a", BaseURL: "http://h", Protocol: "x"}, "protocol"},
		{"bad URL", albedo.ProviderConfig{Name: "a", BaseURL: "h/v1", Protocol: albedo.ProtocolResponses}, "baseUrl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			err := New(path).SaveProvider(context.Background(), tt.p, true)
			var e *albedo.Error
			if !errors.As(err, &e) || e.Code != albedo.EInvalid || e.Details["field"] != tt.field {
				t.Fatalf("err = %#v", err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("file written: %v", err)
			}
		})
	}
}

func TestConcurrentWrites(t *testing.T) {
	path := write(t, withExtras)
	f := New(path)
	var wg sync.WaitGroup
	models := map[string]bool{}
	for i := range 40 {
		provider := []string{"alpha", "beta"}[i%2]
		model := fmt.Sprintf("model-%d", i)
		models[model] = true
		wg.Go(func() {
			if err := f.SetActiveModel(context.Background(), provider, model); err != nil {
				t.Error(err)
			}
		})
	}
	// Providers saved at the same time all land: no update is lost.
	for i := range 10 {
		wg.Go(func() {
			p := albedo.ProviderConfig{Name: fmt.Sprintf("p%d", i), BaseURL: "http://h", Protocol: albedo.ProtocolResponses}
			if err := f.SaveProvider(context.Background(), p, false); err != nil {
				t.Error(err)
			}
		})
	}
	// A reader meanwhile sees a whole file every time.
	wg.Go(func() {
		for range 40 {
			if _, err := f.Load(context.Background()); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	cfg, err := f.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Providers) != 12 {
		t.Errorf("%d providers, want 12", len(cfg.Providers))
	}
	for _, name := range []string{"alpha", "beta"} {
		if m := cfg.Providers[name].Model; !models[m] {
			t.Errorf("%s model = %q", name, m)
		}
	}
	if cfg.Providers[cfg.Active].Model == "" {
		t.Errorf("active = %q", cfg.Active)
	}
	if doc := decoded(t, path); doc["version"] != 3.0 || doc["ui"] == nil {
		t.Errorf("extras lost: %v", doc)
	}
	if names := entries(t, filepath.Dir(path)); !reflect.DeepEqual(names, []string{"config.json"}) {
		t.Errorf("directory holds %v", names)
	}
}

func mustContain(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%q does not contain %q", s, p)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	path := filepath.Join(b.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(withExtras), 0o600); err != nil {
		b.Fatal(err)
	}
	f := New(path)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Load(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStat(b *testing.B) {
	// The cost of the cheapest change check, for comparison with Load.
	path := filepath.Join(b.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(withExtras), 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := os.Stat(path); err != nil {
			b.Fatal(err)
		}
	}
}
