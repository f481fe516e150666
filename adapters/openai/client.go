package openai

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// Options configures a Client. Zero fields take the documented defaults.
type Options struct {
	// HTTPClient sends the requests; nil means a client of its own with
	// the default transport. Its Timeout should be zero: replies stream
	// for as long as the model writes.
	HTTPClient *http.Client
	// IdleTimeout fails a request whose provider sends nothing, neither
	// answer nor stream data, for this long. Default 120s.
	IdleTimeout time.Duration
	// MaxRetries is how many times a request that failed transiently is
	// sent again. Default 4; negative means never.
	MaxRetries int
	// BaseBackoff is the wait before the first retry; it doubles with each
	// retry. Default 500ms.
	BaseBackoff time.Duration
	// MaxBackoff caps the wait before a retry; a Retry-After answer may ask
	// for up to four times as long. Default 8s.
	MaxBackoff time.Duration
	// Logger receives retries and oddities of the streams; nil discards.
	Logger *slog.Logger
}

// Client speaks both OpenAI streaming protocols to any compatible
// provider. It holds no per-request state and is safe for concurrent use;
// it remembers which providers refused the "include" parameter.
type Client struct {
	http        *http.Client
	idle        time.Duration
	retries     int
	baseBackoff time.Duration
	maxBackoff  time.Duration
	log         *slog.Logger
	noInclude   includeRefusals
}

var _ albedo.Provider = (*Client)(nil)

// New returns a Client configured by opts.
func New(opts Options) *Client {
	c := &Client{
		http:        opts.HTTPClient,
		idle:        opts.IdleTimeout,
		retries:     opts.MaxRetries,
		baseBackoff: opts.BaseBackoff,
		maxBackoff:  opts.MaxBackoff,
		log:         opts.Logger,
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.idle <= 0 {
		c.idle = 120 * time.Second
	}
	switch {
	case c.retries == 0:
		c.retries = 4
	case c.retries < 0:
		c.retries = 0
	}
	if c.baseBackoff <= 0 {
		c.baseBackoff = 500 * time.Millisecond
	}
	if c.maxBackoff <= 0 {
		c.maxBackoff = 8 * time.Second
	}
	c.maxBackoff = max(c.maxBackoff, c.baseBackoff)
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Stream sends req to its endpoint in the endpoint's protocol, calls
// onDelta (when not nil) with every fragment of text, reasoning and tool
// call arguments as it arrives, and returns the finished reply. onDelta
// runs on the caller's goroutine. Failures are *albedo.Error values with
// code CodeProviderError; a cancelled ctx returns ctx.Err().
func (c *Client) Stream(ctx context.Context, req albedo.ModelRequest, onDelta func(albedo.Delta)) (albedo.ModelReply, error) {
	if onDelta == nil {
		onDelta = func(albedo.Delta) {}
	}
	ep := req.Endpoint
	var (
		path string
		body *requestBody
		dec  decoder
		err  error
	)
	switch ep.Protocol {
	case albedo.ProtocolChatCompletions:
		path = "/chat/completions"
		body, err = chatBody(req)
		dec = newChatDecoder(ep, onDelta, c.log)
	case albedo.ProtocolResponses:
		path = "/responses"
		body, err = responsesBody(req, !c.noInclude.refused(ep))
		dec = newResponsesDecoder(ep, onDelta, c.log)
	default:
		return albedo.ModelReply{}, albedo.Errorf(albedo.EConfig, "%s: unknown protocol %q", who(ep), ep.Protocol)
	}
	if err != nil {
		return albedo.ModelReply{}, err
	}
	target := strings.TrimRight(ep.BaseURL, "/") + path
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return albedo.ModelReply{}, albedo.Errorf(albedo.EConfig, "%s: base URL %q is not an absolute http(s) URL", who(ep), ep.BaseURL)
	}
	reply, err := c.exchange(ctx, ep, target, body, dec, onDelta, req.OnAttempt)
	if ep.Protocol == albedo.ProtocolResponses && refusesInclude(err, body.asksInclude) {
		// Sent once more without it; the provider is remembered.
		c.log.Warn("provider refused \"include\"; asking without it from now on", "provider", ep.Provider, "error", err)
		c.noInclude.remember(ep)
		if body, err = responsesBody(req, false); err != nil {
			return albedo.ModelReply{}, err
		}
		reply, err = c.exchange(ctx, ep, target, body, newResponsesDecoder(ep, onDelta, c.log), onDelta, req.OnAttempt)
	}
	return reply, err
}

// decoder turns the events of one protocol's stream into a reply.
type decoder interface {
	// event handles one event; end reports that it was the stream's last.
	event(ev sseEvent) (end bool, err error)
	// reply returns the finished reply. ended says whether the stream's end
	// event arrived; without it the decoder decides whether what it has is
	// complete enough to use.
	reply(ended bool) (albedo.ModelReply, error)
	// partial returns the text and reasoning that arrived before the
	// stream failed, flagged partial, and no tool call.
	partial() albedo.ModelReply
}
