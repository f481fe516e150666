package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// requestRow is a row of the requests table, the request ledger.
type requestRow struct {
	bun.BaseModel `bun:"table:requests,alias:r"`

	ID                int64  `bun:"id,pk,autoincrement"`
	SessionID         string `bun:"session_id"`
	Kind              string `bun:"kind"`
	Provider          string `bun:"provider"`
	Model             string `bun:"model"`
	Protocol          string `bun:"protocol"`
	Started           int64  `bun:"started"`
	Finished          int64  `bun:"finished"`
	Outcome           string `bun:"outcome"`
	Status            *int   `bun:"status"`
	Error             string `bun:"error"`
	InputTokens       *int64 `bun:"input_tokens"`
	CachedInputTokens *int64 `bun:"cached_input_tokens"`
	OutputTokens      *int64 `bun:"output_tokens"`
	ReasoningTokens   *int64 `bun:"reasoning_tokens"`
	Items             int    `bun:"items"`
	Bytes             int64  `bun:"bytes"`
}

func newRequestRow(r albedo.RequestRow) requestRow {
	return requestRow{
		SessionID: r.SessionID, Kind: string(r.Kind), Provider: r.Provider, Model: r.Model,
		Protocol: string(r.Protocol), Started: r.Started, Finished: r.Finished, Outcome: string(r.Outcome),
		Status: r.Status, Error: r.Error,
		InputTokens: r.Usage.InputTokens, CachedInputTokens: r.Usage.CachedTokens,
		OutputTokens: r.Usage.OutputTokens, ReasoningTokens: r.Usage.ReasoningTokens,
		Items: r.Items, Bytes: r.Bytes,
	}
}

func (r *requestRow) request() albedo.RequestRow {
	return albedo.RequestRow{
		ID: r.ID, SessionID: r.SessionID, Kind: albedo.RequestKind(r.Kind), Provider: r.Provider, Model: r.Model,
		Protocol: albedo.Protocol(r.Protocol), Started: r.Started, Finished: r.Finished,
		Outcome: albedo.Outcome(r.Outcome), Status: r.Status, Error: r.Error,
		Usage: albedo.Usage{
			InputTokens: r.InputTokens, CachedTokens: r.CachedInputTokens,
			OutputTokens: r.OutputTokens, ReasoningTokens: r.ReasoningTokens,
		},
		Items: r.Items, Bytes: r.Bytes,
	}
}

// requestTotals holds the sums of the ok rows of each session once they
// were read, kept up to date as rows are added.
type requestTotals struct {
	mu     sync.Mutex
	loaded bool
	sums   map[string]albedo.UsageTotals
}

// forget drops the sums of a deleted session.
func (t *requestTotals) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.sums, id)
}

// AppendRequest adds a row to a session's request ledger. A session that
// does not exist is ENotFound.
func (s *Store) AppendRequest(ctx context.Context, r albedo.RequestRow) (albedo.RequestRow, error) {
	row := newRequestRow(r)
	s.totals.mu.Lock()
	defer s.totals.mu.Unlock()
	if _, err := s.write.NewInsert().Model(&row).Returning("id").Exec(ctx); err != nil {
		if _, serr := s.Session(ctx, r.SessionID); serr != nil && albedo.ErrorCode(serr) == albedo.ENotFound {
			return albedo.RequestRow{}, serr
		}
		return albedo.RequestRow{}, fmt.Errorf("insert a request of session %s: %w", r.SessionID, err)
	}
	if s.totals.loaded && r.Outcome == albedo.OutcomeOK {
		t := s.totals.sums[r.SessionID]
		t.Add(r.Usage)
		s.totals.sums[r.SessionID] = t
	}
	return row.request(), nil
}

// Requests returns a session's ledger rows with ID > after, oldest first,
// at most limit of them (limit <= 0: all).
func (s *Store) Requests(ctx context.Context, sessionID string, after int64, limit int) ([]albedo.RequestRow, error) {
	var rows []requestRow
	q := s.read.NewSelect().Model(&rows).Where("session_id = ? AND id > ?", sessionID, after).Order("id ASC")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("select requests of session %s: %w", sessionID, err)
	}
	out := make([]albedo.RequestRow, len(rows))
	for i := range rows {
		out[i] = rows[i].request()
	}
	return out, nil
}

// LastRequest returns a session's newest ledger row of kind.
func (s *Store) LastRequest(ctx context.Context, sessionID string, kind albedo.RequestKind) (albedo.RequestRow, bool, error) {
	var row requestRow
	err := s.read.NewSelect().Model(&row).Where("session_id = ? AND kind = ?", sessionID, string(kind)).
		Order("id DESC").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.RequestRow{}, false, nil
	}
	if err != nil {
		return albedo.RequestRow{}, false, fmt.Errorf("select the last request of session %s: %w", sessionID, err)
	}
	return row.request(), true, nil
}

// RequestTotals sums the usage of the ok rows by session. The sums are read
// once and then kept in memory.
func (s *Store) RequestTotals(ctx context.Context) (map[string]albedo.UsageTotals, error) {
	s.totals.mu.Lock()
	defer s.totals.mu.Unlock()
	if !s.totals.loaded {
		var rows []struct {
			SessionID         string `bun:"session_id"`
			InputTokens       int64  `bun:"input_tokens"`
			CachedInputTokens int64  `bun:"cached_input_tokens"`
			OutputTokens      int64  `bun:"output_tokens"`
			ReasoningTokens   int64  `bun:"reasoning_tokens"`
			Requests          int64  `bun:"requests"`
		}
		err := s.read.NewRaw(`SELECT session_id,
				COALESCE(SUM(input_tokens), 0) AS input_tokens,
				COALESCE(SUM(cached_input_tokens), 0) AS cached_input_tokens,
				COALESCE(SUM(output_tokens), 0) AS output_tokens,
				COALESCE(SUM(reasoning_tokens), 0) AS reasoning_tokens,
				COUNT(*) AS requests
			FROM requests WHERE outcome = ? GROUP BY session_id`, string(albedo.OutcomeOK)).Scan(ctx, &rows)
		if err != nil {
			return nil, fmt.Errorf("sum the usage of the request ledger: %w", err)
		}
		s.totals.sums = make(map[string]albedo.UsageTotals, len(rows))
		for _, r := range rows {
			s.totals.sums[r.SessionID] = albedo.UsageTotals{
				InputTokens: r.InputTokens, CachedInputTokens: r.CachedInputTokens,
				OutputTokens: r.OutputTokens, ReasoningTokens: r.ReasoningTokens, Requests: r.Requests,
			}
		}
		s.totals.loaded = true
	}
	return maps.Clone(s.totals.sums), nil
}
