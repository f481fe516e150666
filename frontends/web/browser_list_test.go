package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestBrowserSessionListFollowsRunningTurns(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, script(nil))
	id := a.newSession()
	tb.login(a)
	row := fmt.Sprintf(`document.querySelector('#sessions li[data-id=%q]')`, id)
	tb.until("the session's row idle", fmt.Sprintf(`(r => r !== null && r.dataset.running === 'false' && r.querySelector('.badge.running') === null)(%s)`, row))

	// A turn started elsewhere shows its badge, and loses it when it ends.
	a.api("POST", "/sessions/"+id+"/events", `{"content": "hold on"}`, nil)
	tb.until("the running badge", fmt.Sprintf(`(r => r !== null && r.dataset.running === 'true' && r.querySelector('.badge.running') !== null)(%s)`, row))
	a.api("POST", "/sessions/"+id+"/interrupt", `{}`, nil)
	tb.until("the badge gone", fmt.Sprintf(`(r => r !== null && r.dataset.running === 'false' && r.querySelector('.badge.running') === null)(%s)`, row))
}

func TestBrowserFindsAndPagesSessions(t *testing.T) {
	tb := newTab(t)
	a := startAlbedo(t, script(nil))
	var ids []string
	for range 32 {
		ids = append(ids, a.newSession())
	}
	patch := func(id, body string) {
		var cfg struct{ Revision int64 }
		a.api("GET", "/sessions/"+id+"?view=configuration", "", &cfg)
		if _, err := a.request("PATCH", "/sessions/"+id+"?view=configuration", body, map[string]string{"If-Match": fmt.Sprintf(`"%d"`, cfg.Revision)}); err != nil {
			t.Fatal(err)
		}
	}
	patch(ids[0], `{"name": "needle"}`)
	patch(ids[1], `{"archived": true}`)
	tb.login(a)

	// 31 active sessions: a page of 30, then one more.
	const rows = `document.querySelectorAll('#sessions li[data-id]').length`
	tb.until("the first page", `document.querySelector('#view[data-state=ready] #sessions') !== null && `+rows+` === 30 && !document.querySelector('#more').hidden`)
	tb.do("more", chromedp.Click(chromedp.CSS("#more")))
	tb.until("the second page", rows+` === 31 && document.querySelector('#more').hidden`)

	// Search finds by name; the archived filter shows the archived one.
	tb.do("search", chromedp.SetValue(chromedp.CSS("#search"), "needle"), chromedp.Click(chromedp.CSS("#filters button[type=submit]")))
	tb.until("the one found", fmt.Sprintf(`location.hash.includes('q=needle') && document.querySelector('#view[data-state=ready] #sessions') !== null && %s === 1 && document.querySelector('#sessions li[data-id]').dataset.id === %q`, rows, ids[0]))
	tb.do("the archived", chromedp.Evaluate[chromedp.Void](`(s => {
		document.querySelector('#search').value = ''; s.value = 'true'; s.dispatchEvent(new Event('change')); })(document.querySelector('#archived'))`))
	tb.until("the archived one", fmt.Sprintf(`location.hash === '#/?archived=true' && document.querySelector('#view[data-state=ready] #sessions') !== null && %s === 1 && document.querySelector('#sessions li[data-id]').dataset.id === %q`, rows, ids[1]))
}
