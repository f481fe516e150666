package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/gin-gonic/gin"
)

// defaultHeartbeat is how often an idle stream sends a comment line when
// APIOptions.Heartbeat is zero.
const defaultHeartbeat = 15 * time.Second

// stream serves a session's events as server-sent events: the first data
// line is {"events": [...]} with everything so far, and each later one
// {"events": [event]} as things happen.
func (a *api) stream(c *gin.Context) {
	sub, err := a.svc.Subscribe(c.Request.Context(), c.Param("id"))
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
	if err := writeEvents(w, sub.Snapshot); err != nil {
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
			if err := writeEvents(w, []albedo.Event{ev}); err != nil {
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

func writeEvents(w gin.ResponseWriter, events []albedo.Event) error {
	if events == nil {
		events = []albedo.Event{}
	}
	data, err := json.Marshal(map[string]any{"events": events})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
		return err
	}
	w.Flush()
	return nil
}
