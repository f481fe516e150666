package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// maxModelsBody caps the model list read from a provider.
const maxModelsBody = 4 << 20

// Models lists the models ep's provider serves: GET {BaseURL}/models, the
// ids of its "data", sorted. It is asked once, without retries; failures
// are provider errors that say what the provider answered, as Stream's
// are, and a base URL that is not absolute http(s) is an EConfig error.
func (c *Client) Models(ctx context.Context, ep albedo.Endpoint) ([]string, error) {
	target := strings.TrimRight(ep.BaseURL, "/") + "/models"
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, albedo.Errorf(albedo.EConfig, "%s: base URL %q is not an absolute http(s) URL", who(ep), ep.BaseURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("listing the models of %s: %w", who(ep), err)
	}
	req.Header.Set("Accept", "application/json")
	if ep.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+ep.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, unreachable(ep, target, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failure(ep, nil, "broke off its model list: %v", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, statusFailure(ep, target, resp.StatusCode, resp.Header, raw)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		if page, ok := htmlPage(resp.Header, raw); ok {
			return nil, failure(ep, map[string]any{"status": resp.StatusCode},
				"answered %s from %s instead of a model list: not an OpenAI-compatible API; check the base URL", page, target)
		}
		return nil, failure(ep, map[string]any{"status": resp.StatusCode}, "answered a model list that is not JSON: %v", err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
