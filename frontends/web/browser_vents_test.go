package web_test

import (
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/fixtures/fakemodel"
	"github.com/chromedp/chromedp"
)

func TestBrowserFiltersDismissesAndDeletesVents(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, func(_ int, req fakemodel.Request) fakemodel.Reply {
		role, text := lastMessage(req)
		switch {
		case role == "tool":
			return fakemodel.Text("filed")
		case strings.Contains(text, "file two vents"):
			return fakemodel.Python("await vent('bug', 'the tests are slow', title='slow tests')\nawait vent('workflow', 'builds take long', title='slow builds')\n")
		}
		return fakemodel.Text("noted")
	})
	id := a.newSession()
	tb.login(a)
	tb.openSession(a, id)
	tb.send("file two vents")
	tb.until("the turn's end", `document.querySelector('#items li.turn[data-status=finished]') !== null`)

	const titles = `[...document.querySelectorAll('#vents li.vent .vent-title')].map(t => t.textContent).sort().join(',')`
	tb.do("the vents", chromedp.Navigate(a.base()+"/web/#/vents"))
	tb.until("both vents open", `document.querySelector('#view[data-state=ready] #vents') !== null && `+titles+` === 'slow builds,slow tests'`)

	// The topic filter keeps the bug; dismissing it takes it off the open
	// ones, and the dismissed ones show it.
	tb.do("the bugs", chromedp.SetValue(chromedp.CSS("#vent-topic"), "bug"), chromedp.Evaluate[chromedp.Void](`document.querySelector('#vent-topic').dispatchEvent(new Event('change'))`))
	tb.until("the bug only", `location.hash === '#/vents?topic=bug' && document.querySelector('#view[data-state=ready] #vents') !== null && `+titles+` === 'slow tests'`)
	tb.do("dismiss", chromedp.Click(chromedp.CSS("#vents li.vent .dismiss")))
	tb.until("dismissed", `(v => v !== null && v.dataset.status === 'dismissed' && v.querySelector('.vent-note.ok') !== null)(document.querySelector('#vents li.vent'))`)
	tb.do("the open ones", chromedp.Navigate(a.base()+"/web/#/vents"))
	tb.until("the other vent open", `document.querySelector('#view[data-state=ready] #vents') !== null && `+titles+` === 'slow builds'`)
	tb.do("the dismissed ones", chromedp.Navigate(a.base()+"/web/#/vents?status=dismissed"))
	tb.until("the dismissed vent", `document.querySelector('#view[data-state=ready] #vents') !== null && `+titles+` === 'slow tests'`)

	// Delete takes it from the ledger.
	tb.do("delete", chromedp.Click(chromedp.CSS("#vents li.vent .delete")))
	tb.until("deleted", `document.querySelector('#vents li.vent') === null`)
	var ledger struct {
		Items []struct{ Value struct{ Title string } }
	}
	a.api("GET", "/extensions/paperclips/items", "", &ledger)
	if len(ledger.Items) != 1 || ledger.Items[0].Value.Title != "slow builds" {
		t.Errorf("after the delete the ledger holds %+v, want only slow builds", ledger.Items)
	}
}
