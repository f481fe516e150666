package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// describe says what an event is in one line.
func describe(ev wire.Event) string {
	switch ev.Type {
	case wire.EventUser:
		who := "user"
		if ev.Source != "" {
			who += " (" + ev.Source + ")"
		}
		text := oneLine(ev.Text)
		if img := ev.Image; img != nil {
			text += fmt.Sprintf(" [%s %d×%d]", img.MimeType, img.Width, img.Height)
		}
		return who + ": " + text
	case wire.EventToolCall:
		return fmt.Sprintf("tool_call %s: %s", ev.Name, oneLine(ev.Code))
	case wire.EventTool:
		cell, err := ev.Cell()
		if err != nil {
			return fmt.Sprintf("tool %s", ev.Status)
		}
		for _, s := range []string{cell.Output, cell.Value, cell.Error} {
			if strings.TrimSpace(s) != "" {
				return fmt.Sprintf("tool %s: %s", cell.Status, oneLine(s))
			}
		}
		return "tool " + cell.Status
	case wire.EventTurn:
		return "turn " + ev.Status
	case wire.EventDelta:
		return fmt.Sprintf("delta %s: %s", ev.Kind, strconv.Quote(ev.Text))
	case wire.EventStatus:
		switch {
		case ev.Running != nil && *ev.Running:
			return "status: running"
		case ev.Running != nil:
			return "status: idle"
		case ev.Usage != nil:
			return fmt.Sprintf("status: %d tokens in, %d out", wire.Tokens(ev.Usage.InputTokens), wire.Tokens(ev.Usage.OutputTokens))
		}
		return "status"
	}
	return ev.Type + ": " + oneLine(ev.Text)
}

// oneLine trims text and shows its line breaks as \n.
func oneLine(text string) string {
	return strings.ReplaceAll(strings.TrimSpace(text), "\n", `\n`)
}
