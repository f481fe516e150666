package sqlite

import (
	"context"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestRequestLedger(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := openStore(t, path)
	ids := createSessions(t, s, "s", 2)
	status := 200
	unavailable := 503
	rows := []albedo.RequestRow{
		{SessionID: ids[0], Kind: albedo.RequestTurn, Provider: "p", Model: "m", Protocol: albedo.ProtocolResponses, Started: 1, Finished: 2, Outcome: albedo.OutcomeOK, Status: &status,
			Usage: albedo.Usage{InputTokens: albedo.Tokens(10), CachedTokens: albedo.Tokens(0), OutputTokens: albedo.Tokens(3), ReasoningTokens: albedo.Tokens(1)}, Items: 1, Bytes: 400},
		{SessionID: ids[1], Kind: albedo.RequestTurn, Outcome: albedo.OutcomeOK, Status: &status, Usage: albedo.Usage{InputTokens: albedo.Tokens(99)}},
		{SessionID: ids[0], Kind: albedo.RequestTurn, Outcome: albedo.OutcomeError, Status: &unavailable, Error: "overloaded", Items: 3, Bytes: 500},
		{SessionID: ids[0], Kind: albedo.RequestTurn, Outcome: albedo.OutcomeInterrupted, Items: 3, Bytes: 500},
		{SessionID: ids[0], Kind: albedo.RequestSummary, Outcome: albedo.OutcomeOK, Status: &status, Usage: albedo.Usage{InputTokens: albedo.Tokens(5), OutputTokens: albedo.Tokens(2)}},
	}
	if _, err := s.RequestTotals(ctx); err != nil { // loads the sums before the rows exist
		t.Fatal(err)
	}
	for i := range rows {
		got, err := s.AppendRequest(ctx, rows[i])
		if err != nil {
			t.Fatal(err)
		}
		rows[i].ID = got.ID
	}
	if _, err := s.AppendRequest(ctx, albedo.RequestRow{SessionID: "nobody", Kind: albedo.RequestTurn, Outcome: albedo.OutcomeOK}); albedo.ErrorCode(err) != albedo.ENotFound {
		t.Errorf("row of a missing session: %v", err)
	}
	mine := []albedo.RequestRow{rows[0], rows[2], rows[3], rows[4]}
	got, err := s.Requests(ctx, ids[0], 0, 0)
	if err != nil || !reflect.DeepEqual(got, mine) {
		t.Errorf("requests = %+v, %v\nwant %+v", got, err, mine)
	}
	if got, _ := s.Requests(ctx, ids[0], rows[0].ID, 2); !reflect.DeepEqual(got, mine[1:3]) {
		t.Errorf("page after %d = %+v", rows[0].ID, got)
	}
	if last, ok, err := s.LastRequest(ctx, ids[0], albedo.RequestTurn); err != nil || !ok || last.ID != rows[3].ID {
		t.Errorf("last turn request = %+v %v %v", last, ok, err)
	}
	if _, ok, err := s.LastRequest(ctx, ids[1], albedo.RequestSummary); ok || err != nil {
		t.Errorf("a summary request that never was: %v %v", ok, err)
	}
	want := map[string]albedo.UsageTotals{
		ids[0]: {InputTokens: 15, CachedInputTokens: 0, OutputTokens: 5, ReasoningTokens: 1, Requests: 2},
		ids[1]: {InputTokens: 99, Requests: 1},
	}
	if totals, err := s.RequestTotals(ctx); err != nil || !reflect.DeepEqual(totals, want) {
		t.Errorf("totals kept up = %+v, %v", totals, err)
	}
	s.Close()
	reopened := openStore(t, path)
	if totals, err := reopened.RequestTotals(ctx); err != nil || !reflect.DeepEqual(totals, want) {
		t.Errorf("totals read afresh = %+v, %v", totals, err)
	}
	if got, _ := reopened.Requests(ctx, ids[0], 0, 0); !reflect.DeepEqual(got, mine) {
		t.Errorf("rows after reopening = %+v", got)
	}
}
