package embedded_test

import (
	"context"
	"net"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/daemon"
	"github.com/albedo-agent/albedo/frontends/embedded"
	"github.com/albedo-agent/albedo/frontends/home"
)

// gate is a provider whose answers wait until it is opened, so that a
// turn can be caught running.
type gate struct{ open chan struct{} }

func (g *gate) Stream(ctx context.Context, _ albedo.ModelRequest, _ func(albedo.Delta)) (albedo.ModelReply, error) {
	select {
	case <-g.open:
		return albedo.ModelReply{Items: []albedo.Item{{Kind: albedo.KindAssistant, Text: "ok"}}}, nil
	case <-ctx.Done():
		return albedo.ModelReply{}, ctx.Err()
	}
}

func gateConfig() *fakes.Config {
	return fakes.NewConfig("p", albedo.ProviderConfig{Name: "p", BaseURL: "http://127.0.0.1:1", Model: "m", Protocol: albedo.ProtocolChatCompletions})
}

// bothAgents returns the two Agents, each over an albedo of its own that
// answers through provider: an embedded albedo, and the HTTP client of a
// daemon.
func bothAgents(t *testing.T, provider albedo.Provider) map[string]wire.Agent {
	t.Helper()
	embeddedAgent := mustOpen(t, embedded.Options{Store: memstore.New(), Provider: provider, Kernel: fakes.NewKernel(), Config: gateConfig()})
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: memstore.New(), Provider: provider, Kernel: fakes.NewKernel(), Config: gateConfig()})
	t.Cleanup(func() { svc.Close(context.Background()) })
	srv := httptest.NewUnstartedServer(nil)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	srv.Config.Handler = daemon.NewHandler(daemon.APIOptions{Service: svc, Token: "tok", Port: port})
	srv.Start()
	t.Cleanup(srv.Close)
	n, _ := strconv.Atoi(port)
	c := client.New(home.Connection{Port: n, Token: "tok"})
	t.Cleanup(func() { c.Close() })
	return map[string]wire.Agent{"embedded": embeddedAgent, "client": c}
}

func ids(list []wire.Session) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

// Finding, archiving and deleting sessions behave the same through the
// embedded API as through the client of a daemon.
func TestManagingSessionsIsTheSameEmbeddedAndOverHTTP(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	for name, agent := range bothAgents(t, g) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			w1, w2 := t.TempDir(), t.TempDir()
			var made []wire.Session
			for _, w := range []string{w1, w1, w2} {
				s, err := agent.CreateSession(ctx, w, "")
				if err != nil {
					t.Fatal(err)
				}
				made = append(made, s)
			}
			a, b, c := made[0].ID, made[1].ID, made[2].ID
			if _, err := agent.Rename(ctx, a, "Alpha report"); err != nil {
				t.Fatal(err)
			}
			all, err := agent.Sessions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			order := ids(all)
			keep := func(want ...string) []string {
				return slices.DeleteFunc(slices.Clone(order), func(id string) bool { return !slices.Contains(want, id) })
			}

			find := func(f wire.SessionFilter) []string {
				t.Helper()
				list, _, err := agent.FindSessions(ctx, f)
				if err != nil {
					t.Fatalf("FindSessions(%+v): %v", f, err)
				}
				return ids(list)
			}
			for _, tt := range []struct {
				name string
				f    wire.SessionFilter
				want []string
			}{
				{"everything", wire.SessionFilter{}, order},
				{"a name, any case", wire.SessionFilter{Query: "ALPHA"}, []string{a}},
				{"an id prefix", wire.SessionFilter{Query: c[:8]}, []string{c}},
				{"a workspace", wire.SessionFilter{Workspace: w1}, keep(a, b)},
				{"nothing matches", wire.SessionFilter{Query: "no such session"}, []string{}},
			} {
				if got := find(tt.f); !slices.Equal(got, tt.want) {
					t.Errorf("%s: found %v, want %v", tt.name, got, tt.want)
				}
			}

			var paged []string
			cursor := ""
			for range len(order) + 1 {
				list, next, err := agent.FindSessions(ctx, wire.SessionFilter{Limit: 1, Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				paged = append(paged, ids(list)...)
				if cursor = next; cursor == "" {
					break
				}
			}
			if !slices.Equal(paged, order) {
				t.Errorf("pages of one give %v, want %v", paged, order)
			}
			if _, _, err := agent.FindSessions(ctx, wire.SessionFilter{Archived: "maybe"}); wire.ErrorCode(err) != wire.CodeInvalid {
				t.Errorf("archived=maybe: %v, want %s", err, wire.CodeInvalid)
			}

			cfg, err := agent.SetArchived(ctx, a, true)
			if err != nil || !cfg.Archived {
				t.Fatalf("archive: %+v, %v", cfg, err)
			}
			if got := find(wire.SessionFilter{}); slices.Contains(got, a) || len(got) != 2 {
				t.Errorf("the default listing holds %v, want the two not archived", got)
			}
			if got := find(wire.SessionFilter{Archived: "true"}); !slices.Equal(got, []string{a}) {
				t.Errorf("archived only: %v, want [%s]", got, a)
			}
			if got := find(wire.SessionFilter{Archived: "all"}); len(got) != 3 {
				t.Errorf("all: %v, want the three", got)
			}
			if cfg, err := agent.SetArchived(ctx, a, false); err != nil || cfg.Archived {
				t.Fatalf("bring back: %+v, %v", cfg, err)
			}
			if got := find(wire.SessionFilter{Archived: "true"}); len(got) != 0 {
				t.Errorf("archived after bringing back: %v", got)
			}

			if _, err := agent.Send(ctx, b, "wait for it", nil); err != nil {
				t.Fatal(err)
			}
			if err := agent.DeleteSession(ctx, b); wire.ErrorCode(err) != wire.CodeBusy {
				t.Errorf("delete while running: %v, want %s", err, wire.CodeBusy)
			}
			if err := agent.DeleteSession(ctx, c); err != nil {
				t.Fatalf("delete: %v", err)
			}
			for range 2 {
				if _, err := agent.Session(ctx, c, 0); wire.ErrorCode(err) != wire.CodeNotFound {
					t.Errorf("a deleted session: %v, want %s", err, wire.CodeNotFound)
				}
				if err := agent.DeleteSession(ctx, c); wire.ErrorCode(err) != wire.CodeNotFound {
					t.Errorf("deleting it again: %v, want %s", err, wire.CodeNotFound)
				}
			}
			if got := find(wire.SessionFilter{Archived: "all"}); slices.Contains(got, c) {
				t.Errorf("the deleted session is still listed: %v", got)
			}
		})
	}
	close(g.open)
}
