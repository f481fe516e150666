package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// requestColumns is the select list that scanRequest reads; every column
// but id is written by AppendRequest, in requestArgs order.
const requestColumns = `id, session_id, kind, provider, model, protocol, started, finished,
	outcome, status, error, input_tokens, cached_input_tokens, output_tokens, reasoning_tokens,
	items, bytes`

// scanRequest reads one row of requestColumns.
func scanRequest(row rowScanner) (albedo.RequestRow, error) {
	var r albedo.RequestRow
	err := row.Scan(&r.ID, &r.SessionID, &r.Kind, &r.Provider, &r.Model, &r.Protocol, &r.Started, &r.Finished,
		&r.Outcome, &r.Status, &r.Error, &r.Usage.InputTokens, &r.Usage.CachedTokens, &r.Usage.OutputTokens,
		&r.Usage.ReasoningTokens, &r.Items, &r.Bytes)
	return r, err
}

// requestTotals holds the sums of the ok rows of each session once they
// were read, kept up to date as rows are added (Dialect.OneWriter).
type requestTotals struct {
	mu     sync.Mutex
	loaded bool
	sums   map[string]albedo.UsageTotals
}

// forget drops the sums of a deleted session, whose ledger rows went
// with it.
func (t *requestTotals) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.sums, id)
}

// AppendRequest adds a row to a session's request ledger. A session that
// does not exist is ENotFound.
func (s *Store) AppendRequest(ctx context.Context, r albedo.RequestRow) (albedo.RequestRow, error) {
	s.totals.mu.Lock()
	defer s.totals.mu.Unlock()
	err := s.write.DB.QueryRowContext(ctx, `INSERT INTO requests (session_id, kind, provider, model, protocol,
		started, finished, outcome, status, error, input_tokens, cached_input_tokens, output_tokens,
		reasoning_tokens, items, bytes) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16
		WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1) RETURNING id`,
		s.text(r.SessionID), s.text(string(r.Kind)), s.text(r.Provider), s.text(r.Model), s.text(string(r.Protocol)),
		r.Started, r.Finished, s.text(string(r.Outcome)), r.Status, s.text(r.Error),
		r.Usage.InputTokens, r.Usage.CachedTokens, r.Usage.OutputTokens, r.Usage.ReasoningTokens,
		r.Items, r.Bytes).Scan(&r.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.RequestRow{}, sessionNotFound(r.SessionID)
	}
	if err != nil {
		return albedo.RequestRow{}, fmt.Errorf("insert a request of session %s: %w", r.SessionID, s.failed(err, r.SessionID))
	}
	if s.totals.loaded && r.Outcome == albedo.OutcomeOK {
		t := s.totals.sums[r.SessionID]
		t.Add(r.Usage)
		s.totals.sums[r.SessionID] = t
	}
	return r, nil
}

// Requests returns a session's ledger rows with ID > after, oldest first,
// at most limit of them (limit <= 0: all).
func (s *Store) Requests(ctx context.Context, sessionID string, after int64, limit int) ([]albedo.RequestRow, error) {
	query := "SELECT " + requestColumns + " FROM requests WHERE session_id = $1 AND id > $2 ORDER BY id"
	args := []any{s.text(sessionID), after}
	if limit > 0 {
		query += " LIMIT $3"
		args = append(args, limit)
	}
	rows, err := scanAll(ctx, s.read.DB, scanRequest, query, args...)
	if err != nil {
		return nil, fmt.Errorf("select requests of session %s: %w", sessionID, s.failed(err, ""))
	}
	return rows, nil
}

// LastRequest returns a session's newest ledger row of kind.
func (s *Store) LastRequest(ctx context.Context, sessionID string, kind albedo.RequestKind) (albedo.RequestRow, bool, error) {
	r, err := scanRequest(s.read.DB.QueryRowContext(ctx, "SELECT "+requestColumns+
		" FROM requests WHERE session_id = $1 AND kind = $2 ORDER BY id DESC LIMIT 1", s.text(sessionID), s.text(string(kind))))
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.RequestRow{}, false, nil
	}
	if err != nil {
		return albedo.RequestRow{}, false, fmt.Errorf("select the last request of session %s: %w", sessionID, s.failed(err, ""))
	}
	return r, true, nil
}

// RequestTotals sums the usage of the ok rows by session. The sums are read
// from the ledger each time, unless this process is its only writer
// (Dialect.OneWriter): then once, and kept up to date as rows are added.
func (s *Store) RequestTotals(ctx context.Context) (map[string]albedo.UsageTotals, error) {
	s.totals.mu.Lock()
	defer s.totals.mu.Unlock()
	if s.totals.loaded {
		return maps.Clone(s.totals.sums), nil
	}
	sums := map[string]albedo.UsageTotals{}
	_, err := scanAll(ctx, s.read.DB, func(row rowScanner) (struct{}, error) {
		var id string
		var t albedo.UsageTotals
		err := row.Scan(&id, &t.InputTokens, &t.CachedInputTokens, &t.OutputTokens, &t.ReasoningTokens, &t.Requests)
		sums[id] = t
		return struct{}{}, err
	}, `SELECT session_id, COALESCE(SUM(input_tokens), 0), COALESCE(SUM(cached_input_tokens), 0),
			COALESCE(SUM(output_tokens), 0), COALESCE(SUM(reasoning_tokens), 0), COUNT(*)
		FROM requests WHERE outcome = $1 GROUP BY session_id`, s.text(string(albedo.OutcomeOK)))
	if err != nil {
		return nil, fmt.Errorf("sum the usage of the request ledger: %w", s.failed(err, ""))
	}
	if s.d.OneWriter {
		s.totals.sums, s.totals.loaded = maps.Clone(sums), true
	}
	return sums, nil
}
