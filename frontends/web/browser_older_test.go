package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/fixtures/fakemodel"
	"github.com/chromedp/chromedp"
)

func TestBrowserLoadsOlderItemsOnScroll(t *testing.T) {
	tb := newTab(t)
	// One turn of many cells: more items than the page shows at first,
	// (requests count from 1) and, at the pages' edges, calls whose results open the next page.
	const cells = 70
	a := startAlbedo(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		_, text := lastMessage(req)
		switch {
		case n <= cells && (strings.Contains(text, "many cells") || strings.Contains(text, "cell ")):
			return fakemodel.Python(fmt.Sprintf("print('cell %d')", n))
		case n == cells+1:
			return fakemodel.Text("all cells ran")
		}
		return fakemodel.Text("noted")
	})
	id := a.newSession()
	tb.login(a)
	tb.openSession(a, id)
	tb.send("many cells")
	tb.until("the turn's end", `document.querySelector('#items li.turn[data-status=finished]') !== null`)
	// A turn more puts the first item shown on a result, its call a page
	// older.
	tb.send("thanks")
	tb.until("the second turn's end", `document.querySelectorAll('#items li.turn[data-status=finished]').length === 2`)

	// A fresh view shows the last items; scrolling up shows the others, a
	// page at a time, until the first.
	tb.do("reload", chromedp.Reload())
	tb.until("the last items", `(s => s !== null && s.dataset.stream === 'open' && s.dataset.older === 'more')(document.querySelector('#session'))`)
	if n := eval[int](tb, `document.querySelectorAll('#items li.cell.orphan').length`); n != 1 {
		t.Fatalf("the first items shown open with %d results without their calls, want 1", n)
	}
	first := len(tb.shownSeqs())
	stored := len(a.historySeqs(id))
	if first >= stored {
		t.Fatalf("the page shows %d of %d items at first: nothing is left to load", first, stored)
	}
	for pages := 1; ; pages++ {
		// The page learns of scrolling from an IntersectionObserver, which
		// tells of changes seen at a frame: a frame is let pass after the
		// last page moved the view, so that it sees the view leave the top
		// before it comes back.
		eval[bool](tb, `new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => { window.scrollTo(0, 0); done(true); })))`)
		tb.until(fmt.Sprintf("older page %d", pages), fmt.Sprintf(`(s => s.dataset.older !== 'loading' && Number(s.dataset.olderPages || 0) >= %d)(document.querySelector('#session'))`, pages))
		if eval[string](tb, `document.querySelector('#session').dataset.older`) == "none" {
			break
		}
		if pages > stored {
			t.Fatal("older pages never end")
		}
	}
	sameItems(t, tb, a, id)
	got := eval[map[string]any](tb, `({
		running: document.querySelectorAll('#items li.cell[data-status=running]').length,
		orphans: document.querySelectorAll('#items li.cell.orphan').length,
		ok: document.querySelectorAll('#items li.cell[data-status=ok]').length,
	})`)
	if got["running"] != float64(0) || got["orphans"] != float64(0) || got["ok"] != float64(cells) {
		t.Errorf("after loading every page the cells are %v, want %d ok, each with its result", got, cells)
	}
}
