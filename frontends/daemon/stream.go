package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/gin-gonic/gin"
)

// defaultHeartbeat is how often an idle stream sends a comment line when
// APIOptions.Heartbeat is zero.
const defaultHeartbeat = 15 * time.Second

// stream serves a session's events as server-sent events: the first data
// line is {"events": [...]} with everything so far (after Last-Event-ID,
// or the last ?tail=N), and each later one {"events": [event]} as things
// happen. Messages with durable events carry the last one's seq as the
// SSE id.
func (a *api) stream(c *gin.Context) {
	opts, ok := streamOptions(c)
	if !ok {
		return
	}
	sub, err := a.app.Service().SubscribeFrom(c.Request.Context(), c.Param("id"), opts)
	if err != nil {
		fail(c, err)
		return
	}
	defer sub.Close()
	w := c.Writer
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := writeSnapshot(c, sub); err != nil {
		return
	}
	tick := time.NewTicker(a.heartbeat)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				return
			}
			if err := writeEvent(w, ev); err != nil {
				return
			}
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
			w.Flush()
		case <-c.Request.Context().Done():
			return
		case <-a.done:
			return
		}
	}
}

// streamOptions reads Last-Event-ID (or ?after, without the header) and
// ?tail. On a bad value it writes
// the 400 itself and reports false.
func streamOptions(c *gin.Context) (albedo.SubscribeOptions, bool) {
	var opts albedo.SubscribeOptions
	after, what := strings.TrimSpace(c.GetHeader("Last-Event-ID")), "Last-Event-ID"
	if after == "" {
		// A browser opening a stream anew cannot set the header.
		after, what = c.Query("after"), "after"
	}
	if after != "" {
		n, err := strconv.ParseInt(after, 10, 64)
		if err != nil || n < 0 {
			invalid(c, "%s must be the seq of an event, not %q", what, after)
			return opts, false
		}
		opts.After = n
	}
	tail, err := app.WholeNumber("tail", c.Query("tail"), 0)
	if err != nil {
		fail(c, err)
		return opts, false
	}
	opts.Tail = int(tail)
	return opts, true
}

// retryMillis is how long a browser waits before it opens a dropped
// stream again (with Last-Event-ID).
const retryMillis = 1000

// writeSnapshot writes the first message of a stream, encoding the
// snapshot page by page as the store yields it, after the retry delay
// for browsers.
func writeSnapshot(c *gin.Context, sub *engine.Subscription) error {
	w := c.Writer
	bw := bufio.NewWriterSize(w, 64<<10)
	first := true
	fmt.Fprintf(bw, "retry: %d\n", retryMillis)
	if id := sub.Last(); id > 0 {
		fmt.Fprintf(bw, "id: %d\n", id)
	}
	bw.WriteString(`data: {"events":[`)
	err := sub.ReadSnapshot(c.Request.Context(), func(page []albedo.Event) error {
		for i := range page {
			data, err := json.Marshal(&page[i])
			if err != nil {
				return err
			}
			if !first {
				bw.WriteByte(',')
			}
			first = false
			if _, err := bw.Write(data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// The headers are out: all that is left is to end the stream.
		logger(c).Error("read stream snapshot", "session", c.Param("id"), "err", err)
		return err
	}
	bw.WriteString("]")
	if sub.Tailed {
		if sub.Before > 0 {
			fmt.Fprintf(bw, `,"before":%d`, sub.Before)
		} else {
			bw.WriteString(`,"before":null`)
		}
	}
	bw.WriteString("}\n\n")
	if err := bw.Flush(); err != nil {
		return err
	}
	w.Flush()
	return nil
}

// writeEvent writes one message holding ev; its id is ev's seq when ev
// is durable.
func writeEvent(w gin.ResponseWriter, ev albedo.Event) error {
	data, err := json.Marshal(wire.EventBatch{Events: []albedo.Event{ev}})
	if err != nil {
		return err
	}
	if ev.Seq > 0 {
		_, err = fmt.Fprintf(w, "id: %d\ndata: %s\n\n", ev.Seq, data)
	} else {
		_, err = fmt.Fprintf(w, "data: %s\n\n", data)
	}
	if err != nil {
		return err
	}
	w.Flush()
	return nil
}
