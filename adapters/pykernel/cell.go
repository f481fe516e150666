package pykernel

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/clip"
)

const (
	// interruptGrace is how long an interrupted cell has to stop before its
	// kernel is killed.
	interruptGrace = 2 * time.Second
	// interruptRepeat is how often the interrupt is sent again meanwhile.
	interruptRepeat = 250 * time.Millisecond
	// markerTimeout bounds the wait for the end of a finished cell's output.
	markerTimeout = 2 * time.Second
)

// Notes for the model about its kernel.
const (
	goneNote   = "The python kernel stopped; the next cell starts a fresh one, without the variables, imports and definitions of earlier cells."
	killedNote = "The python kernel did not stop within 2s of the interrupt and was killed; the next cell starts a fresh one, without the variables, imports and definitions of earlier cells."
)

// liveInterval is how often what a running cell printed is handed on.
const liveInterval = 50 * time.Millisecond

// pumpLive hands what the running cell prints to out every liveInterval,
// until the returned function is called; that one hands on the rest.
func (p *process) pumpLive(out func(string)) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(liveInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if text := p.output.takeLive(false); text != "" {
					out(text)
				}
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		if text := p.output.takeLive(true); text != "" {
			out(text)
		}
	}
}

// cellState is the cell a kernel is running.
type cellState struct {
	id   int64
	ctx  context.Context
	done chan event
	// images are those the cell showed so far; guarded by process.mu.
	images []*albedo.Image
	// refused notes images the kernel sent that albedo does not take.
	refused []string
	// started is set once the kernel said it took the cell: before that,
	// a kernel that dies has not run any of it.
	started atomic.Bool
}

// running returns the cell the kernel runs if its id is id, else nil (a
// cell given up on).
func (p *process) running(id int64) *cellState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cell == nil || p.cell.id != id {
		return nil
	}
	return p.cell
}

// run runs one cell. Cancelling ctx, or the cell's timeout, interrupts it;
// a kernel that then does not stop within interruptGrace is killed. The
// result's Notes say when the kernel is gone afterwards.
func (p *process) run(ctx context.Context, cell albedo.Cell, limit int) (res albedo.CellResult, reached bool) {
	p.mu.Lock()
	p.nextID++
	st := &cellState{id: p.nextID, ctx: ctx, done: make(chan event, 1)}
	p.cell = st
	p.host = cell.Host
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.cell = nil
		p.mu.Unlock()
	}()

	began := time.Now()
	defer func() { res.DurationMS = max(time.Since(began).Milliseconds(), 1) }()
	marker := newMarker()
	found := p.output.begin(marker, limit, cell.Output != nil)
	if cell.Output != nil {
		stop := p.pumpLive(cell.Output)
		// Deferred after the duration: the last output goes out first.
		defer stop()
	}
	defer func() { res = p.withImages(st, res) }()
	err := p.send(request{Type: "run", ID: st.id, Code: cell.Code, Cwd: cell.Workspace, Marker: marker, Limit: limit, HostCalls: p.declare(cell.HostCalls)})
	if err != nil {
		p.log.Warn("sending a cell to the python kernel", "err", err)
		p.kill()
		return p.lost(st, found, "", 0, limit), false
	}

	var timeout <-chan time.Time
	if cell.Timeout > 0 {
		t := time.NewTimer(cell.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var reason albedo.CellStatus
	select {
	case ev := <-st.done:
		return p.finish(ev, found, "", 0, limit), true
	case <-p.exited:
		return p.lost(st, found, "", 0, limit), st.started.Load()
	case <-timeout:
		reason = albedo.CellTimeout
	case <-ctx.Done():
		reason = albedo.CellInterrupted
	}

	// The interrupt is repeated: one that lands while the kernel is still
	// setting the cell up is ignored, and the kernel turns only the first
	// during the cell's code into KeyboardInterrupt.
	p.interrupt()
	again := time.NewTicker(interruptRepeat)
	defer again.Stop()
	grace := time.NewTimer(interruptGrace)
	defer grace.Stop()
	for {
		select {
		case ev := <-st.done:
			return p.finish(ev, found, reason, cell.Timeout, limit), true
		case <-p.exited:
			return p.lost(st, found, reason, cell.Timeout, limit), true
		case <-again.C:
			p.interrupt()
		case <-grace.C:
			p.log.Warn("python kernel ignored the interrupt; killing it")
			p.kill()
			<-p.exited
			p.drain()
			return albedo.CellResult{
				Status: reason,
				Output: p.output.end(),
				Error:  why(reason, cell.Timeout) + " The kernel did not stop and was killed.",
				Notes:  []string{killedNote},
				Trace:  emptyTrace(),
			}, true
		}
	}
}

// finish makes the result of a cell the kernel finished. reason is the
// status it was interrupted for, if it was.
func (p *process) finish(ev event, found <-chan struct{}, reason albedo.CellStatus, timeout time.Duration, limit int) albedo.CellResult {
	if ev.Marked {
		t := time.NewTimer(markerTimeout)
		select {
		case <-found:
		case <-p.exited:
		case <-t.C:
			p.log.Warn("the end of a cell's output did not arrive")
		}
		t.Stop()
	}
	res := albedo.CellResult{
		Status: albedo.CellOK,
		Output: p.output.end(),
		Trace:  ev.Trace,
	}
	if res.Trace.Activities == nil {
		res.Trace.Activities = []albedo.Activity{}
	}
	if res.Trace.Changes == nil {
		res.Trace.Changes = []albedo.Change{}
	}
	if ev.Value != nil {
		res.Value = clip.Text(*ev.Value, textLimit(limit))
	}
	if ev.Status != "ok" {
		res.Status = albedo.CellError
		res.Error = clip.Text(ev.Error, textLimit(limit))
		if reason != "" {
			res.Status = reason
			res.Error = why(reason, timeout) + "\n" + res.Error
		}
	}
	return res
}

// lost makes the result of a cell whose kernel exited before finishing it.
func (p *process) lost(st *cellState, found <-chan struct{}, reason albedo.CellStatus, timeout time.Duration, limit int) albedo.CellResult {
	// The kernel may have finished the cell just before it exited.
	t := time.NewTimer(drainTimeout)
	defer t.Stop()
	select {
	case ev := <-st.done:
		return p.finish(ev, found, reason, timeout, limit)
	case <-p.eventsDone:
	case <-t.C:
	}
	select {
	case ev := <-st.done:
		return p.finish(ev, found, reason, timeout, limit)
	default:
	}
	<-p.exited
	p.drain()
	res := albedo.CellResult{
		Status: albedo.CellError,
		Output: p.output.end(),
		Error:  fmt.Sprintf("The python kernel exited while running the cell (%s).", p.exitState()),
		Notes:  []string{goneNote},
		Trace:  emptyTrace(),
	}
	switch {
	case p.stopped.Load():
		res.Status = albedo.CellInterrupted
		res.Error = "The python kernel was stopped while running the cell."
	case reason != "":
		res.Status = reason
		res.Error = why(reason, timeout) + " " + res.Error
	}
	return res
}

// textLimit is the cap, in bytes, of a value or error the kernel already
// capped at limit characters: a safety net for a misbehaving kernel.
func textLimit(limit int) int {
	return 4*limit + 256
}

// why says why a cell was interrupted.
func why(reason albedo.CellStatus, timeout time.Duration) string {
	if reason == albedo.CellTimeout {
		return fmt.Sprintf("The cell ran longer than its %s timeout and was interrupted.", timeout)
	}
	return "The cell was interrupted."
}

// emptyTrace is the trace of a cell nothing is known about.
func emptyTrace() albedo.Trace {
	return albedo.Trace{Activities: []albedo.Activity{}, Changes: []albedo.Change{}}
}
