package console

import (
	"sync"

	"github.com/rivo/tview"
)

// mailbox runs functions from other goroutines on the application's event
// loop, batching those posted while one batch waits, so a flood of stream
// events costs one redraw per batch rather than one per event.
type mailbox struct {
	app *tview.Application
	mu  sync.Mutex
	fns []func()
	// waiting is true while a batch is queued on the application.
	waiting bool
	// closed is set once the application stopped: posts are dropped.
	closed bool
}

// post schedules f on the event loop. It never blocks.
func (m *mailbox) post(f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.fns = append(m.fns, f)
	if !m.waiting {
		m.waiting = true
		// QueueUpdateDraw blocks until the loop runs the batch; when the
		// application stops first, this goroutine is left waiting, and the
		// process is about to exit anyway.
		go m.app.QueueUpdateDraw(m.run)
	}
}

// run runs the waiting functions; it is called on the event loop.
func (m *mailbox) run() {
	m.mu.Lock()
	fns := m.fns
	m.fns, m.waiting = nil, false
	m.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// close drops every later post.
func (m *mailbox) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed, m.fns = true, nil
}
