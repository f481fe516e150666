package pykernel

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
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

// callHost calls the host of the latest cell, turning a missing host and a
// panic into errors.
func (p *process) callHost(ctx context.Context, name string, args json.RawMessage) (result json.RawMessage, err error) {
	p.mu.Lock()
	host := p.host
	p.mu.Unlock()
	if host == nil {
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
	return host(ctx, name, args)
}

// hostDecl is a host call's declaration as a run request carries it.
type hostDecl struct {
	Name   string      `json:"name"`
	Doc    string      `json:"doc,omitempty"`
	Params []hostParam `json:"params,omitempty"`
}

// hostParam is a parameter of a declared host call.
type hostParam struct {
	Name     string `json:"name"`
	Optional bool   `json:"optional,omitempty"`
	Keywords bool   `json:"keywords,omitempty"`
}

// declare returns the JSON of a cell's host calls for its run request
// when they differ from those the kernel was last told of, else nil. Only
// the goroutine running the cell calls it.
func (p *process) declare(calls []albedo.HostCallDecl) json.RawMessage {
	decls := make([]hostDecl, len(calls))
	for i, c := range calls {
		decls[i] = hostDecl{Name: c.Name, Doc: c.Doc, Params: make([]hostParam, len(c.Params))}
		for j, prm := range c.Params {
			decls[i].Params[j] = hostParam(prm)
		}
	}
	b, err := json.Marshal(decls)
	if err != nil || string(b) == p.offered {
		return nil
	}
	p.offered = string(b)
	return b
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
