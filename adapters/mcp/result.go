package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result is what a tool call gave, in the shapes albedo shows the model.
type Result struct {
	// Text is the result's text contents, one after another; the
	// structured content as JSON when no text came; resources and audio
	// described in a line each.
	Text string
	// Images are the result's images, as the server sent them.
	Images []Image
	// IsError says the tool reported a failure (isError); Text says what.
	IsError bool
	// Raw is the whole result as the server sent it, as JSON.
	Raw json.RawMessage
}

// Image is one image of a result.
type Image struct {
	MIMEType string
	Data     []byte
}

// resultOf turns a call's result into a Result.
func resultOf(r *sdk.CallToolResult) Result {
	out := Result{IsError: r.IsError}
	if raw, err := json.Marshal(r); err == nil {
		out.Raw = raw
	}
	var parts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			out.Images = append(out.Images, Image{MIMEType: c.MIMEType, Data: c.Data})
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			if raw, err := json.Marshal(c); err == nil {
				parts = append(parts, string(raw))
			}
		}
	}
	hasText := false
	for _, c := range r.Content {
		if _, ok := c.(*sdk.TextContent); ok {
			hasText = true
		}
	}
	if !hasText && r.StructuredContent != nil {
		if raw, err := json.Marshal(r.StructuredContent); err == nil {
			parts = append([]string{string(raw)}, parts...)
		}
	}
	out.Text = strings.Join(parts, "\n")
	return out
}

// embedded describes an embedded resource: its text, or a line naming a
// binary one.
func embedded(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return ""
	case r.Text != "":
		return r.Text
	default:
		return fmt.Sprintf("[resource %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
	}
}
