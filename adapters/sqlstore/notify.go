package sqlstore

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Notification is what a commit of items says on Dialect.Notify: who
// committed, to which session, and the Seq of its last item. Its payload
// is "SENDER SEQ SESSION" with the session's id in hex (an id may hold
// any byte), far below PostgreSQL's 8,000 bytes: no commit to a session
// whose id is longer than maxNotifiedID notifies.
type Notification struct {
	Sender    string
	SessionID string
	Seq       int64
}

// ParseNotification reads a notification's payload.
func ParseNotification(payload string) (Notification, error) {
	sender, rest, ok1 := strings.Cut(payload, " ")
	seq, session, ok2 := strings.Cut(rest, " ")
	n, err := strconv.ParseInt(seq, 10, 64)
	id, herr := hex.DecodeString(session)
	if !ok1 || !ok2 || err != nil || herr != nil || len(id) == 0 {
		return Notification{}, fmt.Errorf("not a commit notification: %q", payload)
	}
	return Notification{Sender: sender, SessionID: string(id), Seq: n}, nil
}

// maxNotifiedID is the longest session id a notification names.
const maxNotifiedID = 1000

// notifies reports whether a commit of items to sessionID notifies.
func (s *Store) notifies(sessionID string) bool {
	return s.d.Notify != "" && len(sessionID) <= maxNotifiedID
}

// notifyItems ends b, a statement whose last common table expression is
// ins, an INSERT of items returning their seq, so that the one statement
// answers their seqs and also notifies the commit with its last Seq, when
// it inserted any: the notification leaves when the statement commits.
// Its parameters follow args, which it returns with them.
func (s *Store) notifyItems(b *strings.Builder, args []any, sessionID string) []any {
	n := len(args)
	fmt.Fprintf(b, `,
	note AS (SELECT pg_notify($%d::text, $%d::text || max(seq)::text || ' ' || $%d::text) FROM ins HAVING count(*) > 0)
	SELECT seq FROM ins LEFT JOIN note ON true`, n+1, n+2, n+3)
	return append(args, s.d.Notify, s.d.Sender+" ", hex.EncodeToString([]byte(sessionID)))
}

// notifyInTx notifies, in tx, that the session's transcript grew to seq.
func (s *Store) notifyInTx(ctx context.Context, tx *sql.Tx, sessionID string, seq int64) error {
	payload := s.d.Sender + " " + strconv.FormatInt(seq, 10) + " " + hex.EncodeToString([]byte(sessionID))
	if _, err := tx.ExecContext(ctx, `SELECT pg_notify($1::text, $2::text)`, s.d.Notify, payload); err != nil {
		return fmt.Errorf("notify the commit to session %s: %w", sessionID, err)
	}
	return nil
}
