package engine

import (
	"encoding/json"
	"math"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
	"github.com/albedo-agent/albedo/albedo/projection"
)

// projectionCache keeps what a session's last model request projected, so
// that the next request projects only what was appended since: a turn of
// many tool rounds costs the same per round at its 500th round as at its
// 50th. What is kept is always equal to what ProjectFor (or
// ProjectCompacted) makes of the same items; it is dropped whenever it
// might not be (another protocol or endpoint setting, another compaction
// state, a transcript that is not the kept one plus appended items), and
// rebuilt from the whole transcript.
//
// The kept projection ends at a boundary of the transcript, a place where
// projecting the items before it and the items after it separately gives
// the projection of the whole: every call before it is paired with its
// output (no later item can change how), no Chat Completions message is
// still being merged, and no item after it shares a call id with one
// before it (a later one that does makes the next request rebuild).
type projectionCache struct {
	mu   sync.Mutex
	kept *keptProjection
}

// keptProjection is the kept part of a session's projected transcript.
type keptProjection struct {
	key projectionKey
	// cut is where the transcript's tail begins when key.comp applies,
	// head the text of the summary message that stands in for the items
	// before it.
	cut  int
	head string
	// n is how many transcript items are projected into out, and lastSeq
	// the Seq of the last of them (0 when none): the items a request
	// extends must be these.
	n       int
	lastSeq int64
	// paired is how many paired items (see pairCalls) out holds;
	// lastUser is 1 + the index among them of the last user message, 0
	// when none; from is the reasoning cut out was made with, no more
	// than paired (see chatProjector).
	paired, lastUser, from int
	out                    []json.RawMessage
	// ids are the call ids of the projected calls, outputs and images.
	ids   map[string]bool
	bytes int
}

// projectionKey is what, besides the items, a projection depends on.
type projectionKey struct {
	protocol albedo.Protocol
	// reasoning is set for a Chat Completions endpoint that takes
	// reasoning back (Endpoint.ReasoningContent).
	reasoning bool
	// comp is the session's compaction state, zero when it has none.
	comp albedo.Compaction
}

// drop forgets the kept projection.
func (c *projectionCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kept = nil
}

// size approximates the memory the kept projection holds.
func (c *projectionCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept == nil {
		return 0
	}
	return c.kept.bytes
}

// project returns the input of a request to ep over items, the session's
// whole transcript, starting from the summary of comp when comp is not
// nil and applies to items (see ProjectCompacted). It equals
// ProjectCompacted(items, *comp, ep), or ProjectFor(items, ep) without
// comp, and keeps what it can for the next call. The slice returned is
// the caller's; its elements must not be changed.
func (c *projectionCache) project(items []albedo.Item, comp *albedo.Compaction, ep albedo.Endpoint) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := projectionKey{protocol: ep.Protocol, reasoning: ep.Protocol == albedo.ProtocolChatCompletions && ep.ReasoningContent}
	if comp != nil {
		key.comp = *comp
	}
	if k := c.kept; k != nil && k.extends(key, items) {
		if out, ok := k.extend(items); ok {
			return out
		}
	}
	c.kept = newProjection(key, items)
	out, _ := c.kept.extend(items)
	return out
}

// newProjection starts an empty projection of items under key: it checks
// once where the compaction state cuts items, and whether it applies.
func newProjection(key projectionKey, items []albedo.Item) *keptProjection {
	p := &keptProjection{key: key, cut: -1, ids: make(map[string]bool)}
	if key.comp != (albedo.Compaction{}) {
		if cut, ok := compaction.CutIndex(key.comp, items); ok {
			p.cut, p.head, p.n = cut, compaction.SummaryText(key.comp.Summary, items[:cut]), cut
			if cut > 0 {
				p.lastSeq = items[cut-1].Seq
			}
		}
	}
	return p
}

// extends reports whether items are the items p projected plus items
// appended after them, under the same key. A compaction state that did not
// apply to the items p saw is checked again, since appended items may make
// it apply.
func (p *keptProjection) extends(key projectionKey, items []albedo.Item) bool {
	if p.key != key || p.n > len(items) || (p.cut < 0 && key.comp != (albedo.Compaction{})) {
		return false
	}
	return p.n == 0 || items[p.n-1].Seq == p.lastSeq
}

// carriesCallID reports whether items of kind k take part in pairing
// calls with their outputs.
func carriesCallID(k albedo.ItemKind) bool {
	return k == albedo.KindToolCall || k == albedo.KindToolOutput || k == albedo.KindToolImage
}

// extend projects the items after p.n and returns the whole projection,
// keeping in p what ends at the last boundary. It reports false, changing
// nothing, when an appended item shares a call id with a projected one, or
// when the appended items move the Chat Completions reasoning cut into
// what p holds: then p must be rebuilt.
func (p *keptProjection) extend(items []albedo.Item) ([]json.RawMessage, bool) {
	seg := items[p.n:]
	withHead := p.cut >= 0 && p.n == p.cut && p.paired == 0
	if withHead {
		seg = append([]albedo.Item{{Kind: albedo.KindUser, Text: p.head}}, seg...)
	}
	// last[id] is the index in seg of the last item carrying the call id.
	last := make(map[string]int)
	for j, it := range seg {
		if carriesCallID(it.Kind) {
			if p.ids[it.CallID] {
				return nil, false
			}
			last[it.CallID] = j
		}
	}
	// Pair seg, noting after each item how many paired items it made and
	// whether a call still waits for its output.
	pair := projection.NewPairer(seg)
	made := make([]int, len(seg)+1)
	settled := make([]bool, len(seg)+1)
	settled[0] = true
	for j, it := range seg {
		pair.Add(it)
		made[j+1], settled[j+1] = len(pair.Out), pair.Settled()
	}
	pair.Flush()
	paired := pair.Out
	// The reasoning cut of the whole projection, and of seg's part.
	from, lastUser := math.MaxInt, p.lastUser
	for i, it := range paired {
		if it.Kind == albedo.KindUser {
			lastUser = p.paired + i + 1
		}
	}
	if p.key.reasoning {
		from = lastUser
	}
	if min(from, p.paired) != p.from {
		return nil, false
	}
	rel := from
	if from != math.MaxInt {
		rel = from - p.paired
	}
	var chat *projection.ChatProjector
	var resp *projection.ResponsesProjector
	if p.key.protocol == albedo.ProtocolChatCompletions {
		chat = &projection.ChatProjector{From: rel}
	} else {
		resp = &projection.ResponsesProjector{}
	}
	outLen := func() int {
		if chat != nil {
			return len(chat.Out)
		}
		return len(resp.Out)
	}
	// Project seg's paired items, finding the last boundary: after item j,
	// no call waits, no message is being merged, and no later item shares
	// a call id with an item before it.
	best, bestOut, fed, reach := 0, 0, 0, -1
	for j := 0; j <= len(seg); j++ {
		if j > 0 {
			if it := seg[j-1]; carriesCallID(it.Kind) {
				reach = max(reach, last[it.CallID])
			}
		}
		for ; fed < made[j]; fed++ {
			if chat != nil {
				chat.Add(paired[fed])
			} else {
				resp.Add(paired[fed])
			}
		}
		if resp != nil {
			// A cell's images follow its output in the same step of the
			// pairing, so an output waits for nothing more here.
			resp.Settle()
		}
		if settled[j] && reach < j && (chat == nil || chat.Idle()) {
			best, bestOut = j, outLen()
		}
	}
	for ; fed < len(paired); fed++ {
		if chat != nil {
			chat.Add(paired[fed])
		} else {
			resp.Add(paired[fed])
		}
	}
	var fresh []json.RawMessage
	if chat != nil {
		chat.Flush()
		fresh = chat.Out
	} else {
		resp.Settle()
		fresh = resp.Out
	}
	out := make([]json.RawMessage, 0, len(p.out)+len(fresh))
	out = append(append(out, p.out...), fresh...)

	// Keep what ends at the boundary.
	for _, it := range seg[:best] {
		if carriesCallID(it.Kind) {
			p.ids[it.CallID] = true
		}
	}
	for _, raw := range fresh[:bestOut] {
		p.bytes += len(raw) + 16
	}
	p.out = append(p.out, fresh[:bestOut]...)
	covered := best
	if withHead && best > 0 {
		covered-- // the summary message stands for items[:cut]
	}
	p.n += covered
	if p.n > 0 {
		p.lastSeq = items[p.n-1].Seq
	}
	for i, it := range paired[:made[best]] {
		if it.Kind == albedo.KindUser {
			p.lastUser = p.paired + i + 1
		}
	}
	p.paired += made[best]
	p.from = min(from, p.paired)
	return out, true
}
