package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// requestColumns is the select list that scanRequest reads; every column
// but id is written by AppendRequest, in requestArgs order.
const requestColumns = `id, session_id, kind, provider, model, protocol, started, finished,
	outcome, status, error, input_tokens, cached_input_tokens, output_tokens, reasoning_tokens,
	items, bytes`

// requestArgs returns the values of row for requestColumns but id.
func requestArgs(r *albedo.RequestRow) []any {
	return []any{
		bin(r.SessionID), bin(string(r.Kind)), bin(r.Provider), bin(r.Model), bin(string(r.Protocol)),
		r.Started, r.Finished, bin(string(r.Outcome)), r.Status, bin(r.Error),
		r.Usage.InputTokens, r.Usage.CachedTokens, r.Usage.OutputTokens, r.Usage.ReasoningTokens,
		r.Items, r.Bytes,
	}
}

// scanRequest reads one row of requestColumns.
func scanRequest(row rowScanner) (albedo.RequestRow, error) {
	var (
		r                       albedo.RequestRow
		kind, protocol, outcome string
	)
	err := row.Scan(&r.ID, &r.SessionID, &kind, &r.Provider, &r.Model, &protocol, &r.Started, &r.Finished,
		&outcome, &r.Status, &r.Error, &r.Usage.InputTokens, &r.Usage.CachedTokens, &r.Usage.OutputTokens,
		&r.Usage.ReasoningTokens, &r.Items, &r.Bytes)
	r.Kind, r.Protocol, r.Outcome = albedo.RequestKind(kind), albedo.Protocol(protocol), albedo.Outcome(outcome)
	return r, err
}

// AppendRequest adds a row to a session's request ledger. A session that
// does not exist is ENotFound.
func (s *Store) AppendRequest(ctx context.Context, r albedo.RequestRow) (albedo.RequestRow, error) {
	err := s.sqlDB().QueryRowContext(ctx, `INSERT INTO requests (session_id, kind, provider, model, protocol,
		started, finished, outcome, status, error, input_tokens, cached_input_tokens, output_tokens,
		reasoning_tokens, items, bytes) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16
		WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1) RETURNING id`, requestArgs(&r)...).Scan(&r.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.RequestRow{}, sessionNotFound(r.SessionID)
	}
	if err != nil {
		return albedo.RequestRow{}, fmt.Errorf("insert a request of session %s: %w", r.SessionID, unavailable(err))
	}
	return r, nil
}

// Requests returns a session's ledger rows with ID > after, oldest first,
// at most limit of them (limit <= 0: all).
func (s *Store) Requests(ctx context.Context, sessionID string, after int64, limit int) ([]albedo.RequestRow, error) {
	query := "SELECT " + requestColumns + " FROM requests WHERE session_id = $1 AND id > $2 ORDER BY id"
	args := []any{bin(sessionID), after}
	if limit > 0 {
		query += " LIMIT $3"
		args = append(args, limit)
	}
	rows, err := s.sqlDB().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("select requests of session %s: %w", sessionID, unavailable(err))
	}
	defer rows.Close()
	out := []albedo.RequestRow{}
	for rows.Next() {
		r, err := scanRequest(rows)
		if err != nil {
			return nil, fmt.Errorf("scan requests of session %s: %w", sessionID, unavailable(err))
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select requests of session %s: %w", sessionID, unavailable(err))
	}
	return out, nil
}

// LastRequest returns a session's newest ledger row of kind.
func (s *Store) LastRequest(ctx context.Context, sessionID string, kind albedo.RequestKind) (albedo.RequestRow, bool, error) {
	r, err := scanRequest(s.sqlDB().QueryRowContext(ctx, "SELECT "+requestColumns+
		" FROM requests WHERE session_id = $1 AND kind = $2 ORDER BY id DESC LIMIT 1", bin(sessionID), bin(string(kind))))
	if errors.Is(err, sql.ErrNoRows) {
		return albedo.RequestRow{}, false, nil
	}
	if err != nil {
		return albedo.RequestRow{}, false, fmt.Errorf("select the last request of session %s: %w", sessionID, unavailable(err))
	}
	return r, true, nil
}

// RequestTotals sums the usage of the ok rows by session. The sums are
// read from the ledger each time: another process may have added rows.
func (s *Store) RequestTotals(ctx context.Context) (map[string]albedo.UsageTotals, error) {
	rows, err := s.sqlDB().QueryContext(ctx, `SELECT session_id,
			COALESCE(SUM(input_tokens), 0), COALESCE(SUM(cached_input_tokens), 0),
			COALESCE(SUM(output_tokens), 0), COALESCE(SUM(reasoning_tokens), 0), COUNT(*)
		FROM requests WHERE outcome = $1 GROUP BY session_id`, bin(string(albedo.OutcomeOK)))
	if err != nil {
		return nil, fmt.Errorf("sum the usage of the request ledger: %w", unavailable(err))
	}
	defer rows.Close()
	sums := map[string]albedo.UsageTotals{}
	for rows.Next() {
		var id string
		var t albedo.UsageTotals
		if err := rows.Scan(&id, &t.InputTokens, &t.CachedInputTokens, &t.OutputTokens, &t.ReasoningTokens, &t.Requests); err != nil {
			return nil, fmt.Errorf("sum the usage of the request ledger: %w", unavailable(err))
		}
		sums[id] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sum the usage of the request ledger: %w", unavailable(err))
	}
	return sums, nil
}
