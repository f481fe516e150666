package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/albedo-agent/albedo/frontends/home"
)

// Client talks to one daemon.
type Client struct {
	base  string
	token string
	http  *http.Client
	// Conn is how the client reached the daemon.
	Conn home.Connection
}

// New returns a client of the daemon described by conn.
func New(conn home.Connection) *Client {
	return &Client{
		base:  "http://127.0.0.1:" + strconv.Itoa(conn.Port),
		token: conn.Token,
		http:  &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}},
		Conn:  conn,
	}
}

// Error is an error answer of the daemon.
type Error struct {
	Status  int
	Code    string
	Message string
	// Body is the whole error body.
	Body map[string]any
}

// Error returns the daemon's message.
func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d %s)", e.Message, e.Status, e.Code)
}

// ErrorCode returns the daemon's error code carried by err, or "" when err
// is not an answer of the daemon.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// do sends a request and decodes a JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, body, out any, headers map[string]string) (http.Header, error) {
	resp, err := c.send(ctx, method, path, body, headers)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return nil, fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return resp.Header, nil
}

// send sends a request and returns a 2xx response for the caller to read.
func (c *Client) send(ctx context.Context, method, path string, body any, headers map[string]string) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode body: %w", method, path, err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		e := &Error{Status: resp.StatusCode}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(data, &e.Body) == nil {
			e.Message, _ = e.Body["error"].(string)
			e.Code, _ = e.Body["code"].(string)
		}
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return nil, e
	}
	return resp, nil
}

// Health is the answer of GET /health.
type Health struct {
	OK           bool     `json:"ok"`
	Version      int      `json:"version"`
	Capabilities []string `json:"capabilities"`
}

// Health asks whether the daemon is up.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	_, err := c.do(ctx, http.MethodGet, "/health", nil, &h, nil)
	return h, err
}

// Shutdown asks the daemon to stop.
func (c *Client) Shutdown(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodPost, "/shutdown", struct{}{}, nil, nil)
	return err
}
