package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gin-gonic/gin"
)

// wholeHistory writes a session's whole history, encoding it page by page
// as the store yields it: {"items": [...], "next": null, "before": S}.
func (a *api) wholeHistory(c *gin.Context) {
	ctx := c.Request.Context()
	id := c.Param("id")
	w := c.Writer
	bw := bufio.NewWriterSize(w, 64<<10)
	var oldest int64
	started := false
	start := func() {
		if !started {
			started = true
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			bw.WriteString(`{"items":[`)
		}
	}
	err := a.app.ScanHistory(ctx, id, func(items []wire.HistoryItem) error {
		start()
		for _, h := range items {
			data, err := json.Marshal(&h)
			if err != nil {
				return err
			}
			if oldest == 0 {
				oldest = h.Seq
			} else {
				bw.WriteByte(',')
			}
			if _, err := bw.Write(data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && !started {
		// An unknown session is a 404 before anything is written.
		fail(c, err)
		return
	}
	start()
	if err != nil {
		// The status is out: end the body short, so that the client sees
		// a truncated document rather than a complete wrong one.
		logger(c).Error("read history", "session", id, "err", err)
		bw.Flush()
		panic(http.ErrAbortHandler)
	}
	if oldest > 0 {
		fmt.Fprintf(bw, `],"next":null,"before":%d}`, oldest)
	} else {
		bw.WriteString(`],"next":null,"before":null}`)
	}
	bw.Flush()
}
