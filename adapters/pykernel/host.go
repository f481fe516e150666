package pykernel

import (
	"context"
	"encoding/json"
	"fmt"
)

// answer runs a host call the kernel made and sends it the reply.
func (p *process) answer(ev event) {
	reply := request{Type: "reply", ID: ev.ID}
	result, err := p.callHost(p.callContext(), ev.Name, ev.Args)
	switch {
	case err != nil:
		reply.Error = err.Error()
		if reply.Error == "" {
			reply.Error = fmt.Sprintf("host call %s failed", ev.Name)
		}
	case len(result) == 0:
		reply.Result = json.RawMessage("null")
	case !json.Valid(result):
		reply.Error = fmt.Sprintf("host call %s returned invalid JSON", ev.Name)
	default:
		reply.Result = result
	}
	if err := p.send(reply); err != nil && !p.gone() {
		p.log.Warn("answering a host call", "name", ev.Name, "err", err)
	}
}

// callHost calls Options.Host, turning a missing host and a panic into
// errors.
func (p *process) callHost(ctx context.Context, name string, args json.RawMessage) (result json.RawMessage, err error) {
	if p.host == nil {
		return nil, fmt.Errorf("host call %s is not available here", name)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	defer func() {
		if v := recover(); v != nil {
			p.log.Error("host call panicked", "name", name, "panic", v)
			err = fmt.Errorf("host call %s failed inside albedo", name)
		}
	}()
	return p.host(ctx, p.sessionID, name, args)
}

// callContext is the context of the running cell, or the process's own
// between cells.
func (p *process) callContext() context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cell != nil {
		return p.cell.ctx
	}
	return p.ctx
}
