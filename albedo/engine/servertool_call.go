package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// ServerOutputLimit caps the text of a server tool's result the model
// reads, as a cell's output is capped: the head and the tail are kept,
// with a marker saying how to get all of it from Python.
const ServerOutputLimit = 32 << 10

// runServerTool calls a tool server's tool for the model. The model reads
// the result's text, capped, and its images as tool images; a failure of
// any kind (not started, an error answered, a timeout, an interrupt, a
// lost connection) is an error output paired with the call, and nothing
// is tried again.
func (t *turn) runServerTool(ctx context.Context, call albedo.Item, tool albedo.ServerTool) []albedo.Item {
	s := t.s
	began := s.clock.Now()
	var args json.RawMessage
	if strings.TrimSpace(call.Arguments) != "" {
		args = json.RawMessage(call.Arguments)
	}
	res, err := s.toolServers.Call(ctx, t.sess.Workspace, tool.Ref, args)
	out := albedo.CellResult{Status: albedo.CellOK}
	var text string
	switch {
	case err != nil && ctx.Err() != nil:
		out.Status, out.Error = albedo.CellInterrupted, "the turn was interrupted while the tool ran: "+err.Error()
		text = "interrupted: " + err.Error()
	case err != nil:
		out.Status, out.Error = albedo.CellError, err.Error()
		text = "error: " + err.Error()
	default:
		hint := fmt.Sprintf("call it from Python for all of it: await mcp.call(%q, ...)", tool.Ref.String())
		body := albedo.ClipMiddle(res.Text, ServerOutputLimit, hint)
		body, out.Shown = serverImages(body, res.Images)
		if res.IsError {
			out.Status, out.Error = albedo.CellError, body
			text = "error: " + body
		} else {
			out.Output, text = body, body
		}
	}
	out.DurationMS = s.clock.Now().Sub(began).Milliseconds()
	for _, img := range out.Shown {
		out.Images = append(out.Images, *img.Meta())
	}
	items := outputItems(call, out, s.now())
	items[0].Text = text
	return items
}

// serverImages returns a result's images that the model can be shown,
// MaxCellImages at most, and the text with a line for each one it cannot.
func serverImages(text string, images []albedo.ServerImage) (string, []*albedo.Image) {
	var shown []*albedo.Image
	var lines []string
	for i, raw := range images {
		img, err := albedo.ImageOf(raw.Data)
		switch {
		case err != nil:
			lines = append(lines, fmt.Sprintf("[image %d (%s, %d bytes) not shown: %s]", i+1, raw.MimeType, len(raw.Data), albedo.ErrorMessage(err)))
		case len(shown) >= albedo.MaxCellImages:
			lines = append(lines, fmt.Sprintf("[image %d not shown: a result shows at most %d images]", i+1, albedo.MaxCellImages))
		default:
			shown = append(shown, img)
		}
	}
	if len(lines) > 0 {
		text = strings.TrimPrefix(strings.Join(slices.Insert(lines, 0, text), "\n"), "\n")
	}
	return text, shown
}
