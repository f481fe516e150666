package openai

import (
	"cmp"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// piece is one item of a reply assembled from streamed fragments: an
// answer, reasoning or a call's arguments, at its place in the output.
type piece struct {
	index int
	kind  albedo.ItemKind
	// text is the text, or a call's arguments.
	text strings.Builder
	// part is the reasoning part (a Responses summary's) text last came
	// from; another part's text is set apart by a blank line.
	part     int
	id, name string
}

// assembly assembles a reply from its streamed fragments, in either
// protocol: each fragment within the cap and shown as a delta as it
// comes; with think tags on, a leading <think> block of the answer is
// kept as reasoning.
type assembly struct {
	onDelta func(albedo.Delta)
	cap     replyCap
	think   *thinkSplitter
	// thinkAt is the index of the answer the think block is split from.
	thinkAt int
	pieces  []*piece
	// refused marks the answer as the model's refusal.
	refused bool
}

func newAssembly(ep albedo.Endpoint, onDelta func(albedo.Delta)) assembly {
	a := assembly{onDelta: onDelta, cap: replyCap{ep: ep, item: replyLimit(ep)}}
	if ep.ThinkTags {
		a.think = &thinkSplitter{}
	}
	return a
}

// piece returns the piece of kind at index, adding it when new.
func (a *assembly) piece(index int, kind albedo.ItemKind) *piece {
	if i := slices.IndexFunc(a.pieces, func(p *piece) bool { return p.index == index && p.kind == kind }); i >= 0 {
		return a.pieces[i]
	}
	p := &piece{index: index, kind: kind}
	a.pieces = append(a.pieces, p)
	return p
}

// add adds a fragment of the piece of kind at index, of its reasoning
// part part.
func (a *assembly) add(index int, kind albedo.ItemKind, part int, s string) {
	if kind == albedo.KindAssistant && a.think != nil {
		a.thinkAt = index
		a.think.feed(s, a.keeper(index, albedo.KindReasoning), a.keeper(index, kind))
		return
	}
	a.keep(index, kind, part, s)
}

func (a *assembly) keeper(index int, kind albedo.ItemKind) func(string) {
	return func(s string) { a.keep(index, kind, 0, s) }
}

// keep adds s to its piece within the cap and shows it.
func (a *assembly) keep(index int, kind albedo.ItemKind, part int, s string) {
	if s == "" {
		return
	}
	p := a.piece(index, kind)
	sep := kind == albedo.KindReasoning && p.text.Len() > 0 && part != p.part
	have := p.text.Len()
	if sep {
		have += 2
	}
	if s = a.cap.fit(capName[kind], have, s); s == "" {
		return
	}
	if sep {
		p.text.WriteString("\n\n")
	}
	p.part = part
	p.text.WriteString(s)
	a.onDelta(albedo.Delta{Kind: deltaKind[kind], Text: s})
}

// capName names an item of a kind in the error of the cap.
var capName = map[albedo.ItemKind]string{
	albedo.KindAssistant: "an answer",
	albedo.KindReasoning: "reasoning",
	albedo.KindToolCall:  "a call's arguments",
}

// deltaKind is the kind of the deltas of an item of a kind.
var deltaKind = map[albedo.ItemKind]albedo.DeltaKind{
	albedo.KindAssistant: albedo.DeltaText,
	albedo.KindReasoning: albedo.DeltaReasoning,
	albedo.KindToolCall:  albedo.DeltaToolCall,
}

// items returns the pieces as items of protocol, in output order (at one
// index: reasoning, the answer, a call), less empty texts; a call without
// an id gets one from newID. An open <think> block ends first. The items
// carry no Raw: the projection writes an answer or a call from its
// fields, and reasoning of either protocol made from text alone is not
// replayed.
func (a *assembly) items(protocol albedo.Protocol, newID func() string) []albedo.Item {
	if a.think != nil {
		a.think.end(a.keeper(a.thinkAt, albedo.KindReasoning), a.keeper(a.thinkAt, albedo.KindAssistant))
	}
	order := map[albedo.ItemKind]int{albedo.KindReasoning: 0, albedo.KindAssistant: 1, albedo.KindToolCall: 2}
	slices.SortStableFunc(a.pieces, func(x, y *piece) int {
		return cmp.Or(cmp.Compare(x.index, y.index), cmp.Compare(order[x.kind], order[y.kind]))
	})
	items := make([]albedo.Item, 0, len(a.pieces))
	for _, p := range a.pieces {
		it := albedo.Item{Kind: p.kind, Protocol: protocol}
		switch {
		case p.kind == albedo.KindToolCall:
			if p.id == "" {
				p.id = newID()
			}
			it.CallID, it.ToolName, it.Arguments = p.id, p.name, p.text.String()
		case p.text.Len() == 0:
			continue
		default:
			it.Text = p.text.String()
		}
		if p.kind == albedo.KindAssistant && a.refused {
			it.Flags |= albedo.FlagRefusal
		}
		items = append(items, it)
	}
	return items
}

// partial returns the reasoning and text that streamed, flagged partial;
// after the cap, the calls' arguments too, as notes, which nothing runs
// and no request sends.
func (a *assembly) partial(protocol albedo.Protocol, newID func() string) []albedo.Item {
	var items []albedo.Item
	for _, it := range a.items(protocol, newID) {
		if it.Kind == albedo.KindToolCall {
			if a.cap.hit == nil {
				continue
			}
			it = albedo.Item{Kind: albedo.KindNote, ToolName: it.ToolName, Text: it.Arguments, Protocol: protocol}
		}
		if it.Text == "" {
			continue
		}
		it.Flags |= albedo.FlagPartial
		items = append(items, it)
	}
	return items
}
