package engine

import (
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
)

// evictionPlan says what a new compaction summarises: the items from the
// previous cut up to the new one, which keeps the newest units (the tail).
// ok is false when there is nothing new to summarise.
type evictionPlan struct {
	from, to int
	users    int
}

// planEviction plans the eviction of every unit of items but the newest
// keep (at least one) that prev, when valid, does not cover yet.
func planEviction(items []albedo.Item, prev albedo.Compaction, prevValid bool, keep int) (evictionPlan, bool) {
	keep = max(keep, 1)
	starts := compaction.UnitStarts(items)
	if len(starts) <= keep {
		return evictionPlan{}, false
	}
	p := evictionPlan{users: len(starts) - keep, to: starts[len(starts)-keep]}
	if prevValid {
		if prev.Users >= p.users {
			return evictionPlan{}, false
		}
		p.from = starts[prev.Users]
	}
	return p, true
}

// stated returns the compaction state that summary makes of items after
// plan.
func (p evictionPlan) stated(items []albedo.Item, id, summary, strategy string, now int64) albedo.Compaction {
	return albedo.Compaction{SessionID: id, Summary: summary, Users: p.users, Fingerprint: compaction.Fingerprint(items, p.users),
		Items: conversational(items[:p.to]), Strategy: strategy, At: now}
}
