package pykernel

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// readEvents reads the kernel's events until its fd 4 closes.
func (p *process) readEvents() {
	defer close(p.eventsDone)
	r := bufio.NewReaderSize(p.events, 64<<10)
	for {
		body, err := readFrame(r)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !p.gone() {
				p.log.Warn("reading python kernel events", "err", err)
				p.kill()
			}
			return
		}
		var ev event
		if err := json.Unmarshal(body, &ev); err != nil {
			p.log.Warn("decoding a python kernel event", "err", err)
			p.kill()
			return
		}
		switch ev.Type {
		case "ready":
			select {
			case p.ready <- ev:
			default:
			}
		case "call":
			go p.answer(ev)
		case "started":
			if st := p.running(ev.ID); st != nil {
				st.started.Store(true)
			}
		case "done":
			if st := p.running(ev.ID); st != nil {
				select {
				case st.done <- ev:
				default:
				}
			}
		case "image":
			p.takeImage(ev)
		case "job_started", "job_ended", "job_wake":
			p.jobEvent(ev)
		default:
			p.log.Warn("unknown python kernel event", "type", ev.Type)
		}
	}
}

// readOutput feeds the kernel's stdout and stderr to the capture.
func (p *process) readOutput() {
	defer close(p.outputDone)
	buf := make([]byte, 256<<10)
	for {
		n, err := p.out.Read(buf)
		if n > 0 {
			p.output.write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// send writes one request to the kernel.
func (p *process) send(req request) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode a %s request: %w", req.Type, err)
	}
	return p.write(body)
}

// write writes one frame to the kernel.
func (p *process) write(body []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_ = p.ctl.SetWriteDeadline(time.Now().Add(writeTimeout))
	return writeFrame(p.ctl, body)
}

// drain waits, briefly, for the output pipe to end after the kernel exited.
func (p *process) drain() {
	select {
	case <-p.outputDone:
	case <-time.After(drainTimeout):
	}
}
