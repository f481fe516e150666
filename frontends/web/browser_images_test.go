package web_test

import (
	"bytes"
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

func TestBrowserShowsACellsImage(t *testing.T) {
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

	// A reload shows it again from the history.
	tb.do("reload", chromedp.Reload())
	tb.until("the image after a reload", shown)
}
