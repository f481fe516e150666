package web_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/fixtures/fakemodel"
	"github.com/chromedp/chromedp"
)

func TestBrowserShowsCellAndMessageImages(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, func(_ int, req fakemodel.Request) fakemodel.Reply {
		role, text := lastMessage(req)
		switch {
		case role == "tool":
			return fakemodel.Text("the chart is shown")
		case strings.Contains(text, "show the chart"):
			return fakemodel.Python("show_image('chart.png')")
		}
		return fakemodel.Text("noted")
	})
	chart := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for x := range 40 {
		chart.Set(x, x*30/40, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, chart); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.workspace, "chart.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	id := a.newSession()
	tb.login(a)
	tb.openSession(a, id)
	tb.send("show the chart")
	const shown = `(i => i !== null && i.dataset.loaded === 'true' && i.naturalWidth === 40 && i.naturalHeight === 30)(document.querySelector('#items li.cell[data-status=ok] .result img.shown-image'))`
	tb.until("the cell's image shown", shown)
	tb.until("the turn's end", `document.querySelector('#items li.turn[data-status=finished]') !== null`)

	// A message's image shows too.
	msg, _ := json.Marshal(map[string]any{"content": "and this one", "image": map[string]any{
		"mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(buf.Bytes()), "width": 40, "height": 30, "bytes": buf.Len()}})
	a.api("POST", "/sessions/"+id+"/events", string(msg), nil)
	const pasted = `(i => i !== null && i.dataset.loaded === 'true' && i.naturalWidth === 40)(document.querySelector('#items li.user img.shown-image'))`
	tb.until("the message's image shown", pasted)
	tb.until("the second turn's end", `document.querySelectorAll('#items li.turn[data-status=finished]').length === 2`)

	// A reload shows both again from the history.
	tb.do("reload", chromedp.Reload())
	tb.until("the images after a reload", shown+" && "+pasted)

	// The head shows how full the context is and the kernel's sandbox.
	tb.until("the context figure and the sandbox glance", `document.querySelector('#context').textContent.startsWith('context ') && document.querySelector('#sandbox').textContent.startsWith('sandbox ')`)
}
