package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// pageItems is how many items a paged read takes from the store at once:
// enough to keep the store busy, few enough that a page of long outputs
// stays a few megabytes.
const pageItems = 256

// callLookback is how many items before a page's start are read for the
// calls whose outputs open it.
const callLookback = 32

// MaxHistoryPage bounds the items of one page of history.
const MaxHistoryPage = 500

// ScanItems calls fn with a session's items with after < Seq <= upto (upto
// 0: to the end), oldest first, in pages read from the store for display
// (see ItemQuery.Display), images without their data. A page is only
// valid during the call.
func (s *Service) ScanItems(ctx context.Context, id string, after, upto int64, fn func([]albedo.Item) error) error {
	q := albedo.ItemQuery{After: after, Limit: pageItems, Display: true}
	if upto > 0 {
		q.Before = upto + 1
	}
	for {
		items, err := s.store.ItemPage(ctx, id, q)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return nil
		}
		if err := fn(items); err != nil {
			return err
		}
		if len(items) < pageItems {
			return nil
		}
		q.After = items[len(items)-1].Seq
	}
}

// eventPages calls fn with the durable events of a session with from <
// Seq <= to, oldest first, in pages. Nothing is read when to <= from.
func (s *Service) eventPages(ctx context.Context, id string, from, to int64, fn func([]albedo.Event) error) error {
	if to <= from {
		return nil
	}
	codes := map[string]string{}
	if from > 0 {
		// The outputs that open the range answer calls made before it.
		before, err := s.store.ItemPage(ctx, id, albedo.ItemQuery{Before: from + 1, Limit: callLookback, Newest: true, Display: true})
		if err != nil {
			return err
		}
		for _, it := range before {
			if it.Kind == albedo.KindToolCall {
				codes[it.CallID] = albedo.CallCode(it)
			}
		}
	}
	events := make([]albedo.Event, 0, pageItems)
	return s.ScanItems(ctx, id, from, to, func(items []albedo.Item) error {
		events = events[:0]
		for _, it := range items {
			switch it.Kind {
			case albedo.KindToolCall:
				codes[it.CallID] = albedo.CallCode(it)
				events = append(events, albedo.EventOf(it, ""))
			case albedo.KindToolOutput:
				events = append(events, albedo.EventOf(it, codes[it.CallID]))
				delete(codes, it.CallID)
			case albedo.KindToolImage:
				// described by its output's event
			default:
				events = append(events, albedo.EventOf(it, ""))
			}
		}
		return fn(events)
	})
}

// HistoryPage returns a page of a session's history, read for display
// (see ItemQuery.Display).
func (s *Service) HistoryPage(ctx context.Context, id string, q albedo.HistoryQuery) (albedo.HistoryPage, error) {
	if q.Limit <= 0 || q.Limit > MaxHistoryPage {
		q.Limit = MaxHistoryPage
	}
	newest := q.Before > 0 && q.After == 0
	query := albedo.ItemQuery{After: q.After, Before: q.Before, Limit: q.Limit + 1, Newest: newest, Display: true}
	if newest {
		query.Limit = q.Limit
	}
	items, err := s.store.ItemPage(ctx, id, query)
	if err != nil {
		return albedo.HistoryPage{}, err
	}
	var page albedo.HistoryPage
	if !newest && len(items) > q.Limit {
		items = items[:q.Limit]
		page.Next = items[len(items)-1].Seq
	}
	page.Items = items
	if len(items) > 0 {
		page.Before = items[0].Seq
	}
	return page, nil
}

// Tail returns the last n events of a session.
func (s *Service) Tail(ctx context.Context, id string, n int) ([]albedo.Event, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return nil, err
	}
	if n <= 0 {
		return []albedo.Event{}, nil
	}
	last, err := s.lastSeq(ctx, id)
	if err != nil {
		return nil, err
	}
	events := make([]albedo.Event, 0, min(int64(n), last))
	err = s.eventPages(ctx, id, max(last-int64(n), 0), last, func(page []albedo.Event) error {
		events = append(events, page...)
		return nil
	})
	return events, err
}
