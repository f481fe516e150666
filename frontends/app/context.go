package app

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// Requests returns a page of a session's request ledger: rows after the
// cursor after, at most limit of them (0: the default of 50; more than 200
// is invalid).
func (a *App) Requests(ctx context.Context, id string, after int64, limit int) (wire.RequestPage, error) {
	page, err := a.svc.Requests(ctx, id, after, limit)
	return shown(page, err, requestPage)
}

// Context reports how full a session's model context is.
func (a *App) Context(ctx context.Context, id string) (wire.Context, error) {
	rep, err := a.svc.Context(ctx, id)
	return shown(rep, err, contextReport)
}

// requestPage shows a page of a session's request ledger.
func requestPage(p albedo.RequestPage) wire.RequestPage {
	out := wire.RequestPage{Rows: make([]wire.RequestRow, len(p.Rows)), Next: p.Next}
	for i, r := range p.Rows {
		out.Rows[i] = wire.RequestRow{
			ID: r.ID, Kind: string(r.Kind), Provider: r.Provider, Model: r.Model, Protocol: string(r.Protocol),
			Started: r.Started, Finished: r.Finished, Outcome: string(r.Outcome), Status: r.Status,
			Error:       optional(r.Error),
			InputTokens: r.Usage.InputTokens, CachedInputTokens: r.Usage.CachedTokens,
			OutputTokens: r.Usage.OutputTokens, ReasoningTokens: r.Usage.ReasoningTokens,
			Items: r.Items, Bytes: r.Bytes,
		}
	}
	return out
}

// contextReport shows how full a session's context is.
func contextReport(r albedo.ContextReport) wire.Context {
	out := wire.Context{
		Window: r.Window, WindowSource: optional(r.WindowSource), Used: r.Used, UsedSource: optional(r.UsedSource),
		Percent: r.Percent, Instructions: make([]wire.InstructionUse, len(r.Instructions)), Problems: r.Problems,
	}
	for i, u := range r.Instructions {
		out.Instructions[i] = wire.InstructionUse{Path: u.Path, Bytes: u.Bytes, Truncated: u.Truncated}
	}
	out.Skills = make([]wire.ContextSkill, len(r.Skills))
	for i, s := range r.Skills {
		out.Skills[i] = wire.ContextSkill{Name: s.Name, Description: s.Description, Source: s.Source}
	}
	if out.Problems == nil {
		out.Problems = []string{}
	}
	out.Compaction = wire.ContextCompaction{State: wire.CompactionNone}
	if c := r.Compaction; c != nil {
		at := c.At
		out.Compaction = wire.ContextCompaction{State: wire.CompactionCompacted, SummarisedItems: c.Items, At: &at}
	}
	return out
}
