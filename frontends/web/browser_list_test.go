package web_test

import (
	"fmt"
	"testing"
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
