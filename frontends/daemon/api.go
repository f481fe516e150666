package daemon

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/albedo-agent/albedo/frontends/markup"
	"github.com/albedo-agent/albedo/frontends/web"
	"github.com/gin-gonic/gin"
)

// APIVersion is the version /health reports.
const APIVersion = 2

// maxBody caps a request body: room for one image at albedo.MaxImageBytes
// in base64 and its message.
const maxBody = albedo.MaxImageBytes*4/3 + 2<<20

// Capabilities are the features /health advertises.
func Capabilities() []string {
	return []string{"session_provider", "session_workspace", "session_fork", "session_stream", "images", "commands", "paperclips", "sandbox", "mcp"}
}

// capabilities are the features this daemon has: Capabilities, and
// "snapshots" when it snapshots workspaces (git is on PATH).
func (a *api) capabilities() []string {
	c := Capabilities()
	if a.app.Service().Snapshots() {
		c = append(c, "snapshots")
	}
	return c
}

// APIOptions configure the HTTP API.
type APIOptions struct {
	// Service is the domain service the routes answer from.
	Service *engine.Service
	// Token is the bearer token every request must carry.
	Token string
	// Port is the daemon's port, used to recognise its own Host and
	// Origin.
	Port string
	// AllowedHosts are further Host values (host or host:port) the daemon
	// answers, such as the address of the user's own tunnel to it. Without
	// them only 127.0.0.1, localhost and [::1] at Port are answered.
	AllowedHosts []string
	// Shutdown is called by POST /shutdown.
	Shutdown func()
	// Done is closed when the daemon stops, ending open streams.
	Done   <-chan struct{}
	Logger *slog.Logger
	// Version is albedo's version string.
	Version string
	// Store names the kind of store the daemon keeps its data in, as
	// /health reports it ("sqlite", "postgresql"); "" reports none.
	Store string
	// Node names this daemon among those sharing its store, as /health
	// reports it; "" reports none.
	Node string
	// Heartbeat is how often an idle stream sends a comment line; zero
	// means 15 seconds.
	Heartbeat time.Duration
	// MCP answers the MCP routes; nil answers them not_found.
	MCP app.MCPServers
	// Logins logs browsers into the web page; nil makes one whose logins
	// end with the handler.
	Logins *web.Logins
}

// api holds what the handlers share.
type api struct {
	app       *app.App
	token     string
	port      string
	hosts     hostSet
	shutdown  func()
	done      <-chan struct{}
	log       *slog.Logger
	version   string
	store     string
	node      string
	heartbeat time.Duration
	mcp       app.MCPServers
	logins    *web.Logins
	markup    *markup.HTML
}

// NewHandler returns the daemon's HTTP API.
func NewHandler(opts APIOptions) http.Handler {
	a := &api{app: app.New(opts.Service, opts.MCP), token: opts.Token, port: opts.Port, hosts: newHostSet(opts.Port, opts.AllowedHosts), shutdown: opts.Shutdown, done: opts.Done, log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)), version: opts.Version, store: opts.Store, node: opts.Node, heartbeat: opts.Heartbeat, mcp: opts.MCP, logins: opts.Logins, markup: markup.NewHTML()}
	if a.heartbeat <= 0 {
		a.heartbeat = defaultHeartbeat
	}
	if a.shutdown == nil {
		a.shutdown = func() {}
	}
	if a.logins == nil {
		// Only a failing random source fails this; the daemon could not
		// have made its token either.
		a.logins, _ = web.NewLogins(web.LoginOptions{})
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.ContextWithFallback = true
	r.HandleMethodNotAllowed = true
	r.Use(a.recoverPanic, a.withLogger, a.guard)
	r.NoRoute(a.authorize(tokenAccess), func(c *gin.Context) {
		fail(c, albedo.Errorf(albedo.ENotFound, "no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	r.NoMethod(a.authorize(tokenAccess), func(c *gin.Context) {
		fail(c, albedo.Errorf(wire.CodeMethodNotAllowed, "method %s is not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})

	for _, rt := range routes() {
		handle := rt.handle
		r.Handle(rt.method, pathParam.ReplaceAllString(rt.path, ":$1"), a.authorize(rt.access), limitBody, func(c *gin.Context) { handle(a, c) })
	}
	return r
}

func (a *api) withLogger(c *gin.Context) {
	c.Set("logger", a.log)
	c.Next()
}

func logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get("logger"); ok {
		return l.(*slog.Logger)
	}
	return slog.New(slog.DiscardHandler)
}

func (a *api) recoverPanic(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r) // the handler ends its answer short on purpose
			}
			a.log.Error("handler panicked", "path", c.Request.URL.Path, "panic", fmt.Sprint(r))
			fail(c, fmt.Errorf("panic: %v", r))
		}
	}()
	c.Next()
}

// limitBody refuses a body declared larger than maxBody at once, without
// reading it, and caps the reading of any other.
func limitBody(c *gin.Context) {
	if c.Request.ContentLength > maxBody {
		refuse(c, tooLarge(c.Request.ContentLength))
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxBody)
	c.Next()
}

// tooLarge is the error of a body of n bytes (-1: unknown) over maxBody.
func tooLarge(n int64) error {
	if n < 0 {
		return albedo.Errorf(albedo.ETooLarge, "the request body is larger than the %d bytes albedo takes", int64(maxBody))
	}
	return albedo.Errorf(albedo.ETooLarge, "the request body of %d bytes is larger than the %d bytes albedo takes", n, int64(maxBody))
}

// bind decodes a JSON body into v. When the body is missing or not valid
// it writes the 400 itself and reports false.
func bind(c *gin.Context, v any) bool {
	data, err := io.ReadAll(c.Request.Body)
	var over *http.MaxBytesError
	if errors.As(err, &over) {
		c.Header("Connection", "close")
		fail(c, tooLarge(-1))
		return false
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		refuse(c, albedo.Errorf(albedo.EInvalid, "the request body did not arrive in time: albedo waits at most %s for a whole request", readTimeout))
		return false
	}
	if err != nil {
		invalid(c, "read request body: %v", err)
		return false
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		invalid(c, "request body must be a JSON object")
		return false
	}
	if err := json.Unmarshal(data, v); err != nil {
		invalid(c, "request body is not valid: %s", describeJSONError(err))
		return false
	}
	return true
}

// describeJSONError turns a decoding error into a sentence for people.
func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("field %q must be %s, not %s", typ.Field, kindName(typ.Type.Kind().String()), typ.Value)
		}
		return fmt.Sprintf("expected %s, not %s", kindName(typ.Type.Kind().String()), typ.Value)
	}
	return err.Error()
}

func kindName(k string) string {
	switch k {
	case "struct", "map":
		return "an object"
	case "slice":
		return "an array"
	case "int", "int64", "float64":
		return "a number"
	case "ptr":
		return "a value"
	}
	return "a " + k
}

func (a *api) health(c *gin.Context) {
	c.JSON(http.StatusOK, wire.Health{OK: true, Version: APIVersion, Capabilities: a.capabilities(), Albedo: a.version, Store: a.store, Node: a.node, Running: a.app.Service().Leased(), Sandbox: a.app.Sandbox(c.Request.Context())})
}

func (a *api) postShutdown(c *gin.Context) {
	c.JSON(http.StatusOK, wire.OK{OK: true})
	go a.shutdown()
}
