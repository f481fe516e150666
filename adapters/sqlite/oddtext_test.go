package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// oddTexts are strings that SQL text cannot carry or that stress it: the
// store must keep each byte for byte.
var oddTexts = map[string]string{
	"nul":            "\x00",
	"nul inside":     "a\x00b\x00",
	"quote":          "it's '; DROP TABLE sessions; --",
	"controls":       "\x01\x02\t\r\n\x1b[31m\x7f",
	"replacement":    "\ufffd",
	"astral":         "\U0001F600 \U00010000 \U0010FFFF",
	"every plane":    "a\u00e9\u4e2d\U0001D11E\U00020000\U000E0001\U000F0000\U0010FFFD",
	"long line":      strings.Repeat("x", 100_000),
	"question marks": "? ?? ?0 $1 :name",
}

// TestOddTextRoundTrips stores odd strings in every text column a caller
// fills, and reads each back unchanged.
func TestOddTextRoundTrips(t *testing.T) {
	ctx := context.Background()
	for name, text := range oddTexts {
		t.Run(name, func(t *testing.T) {
			path := testPath(t)
			s := openStore(t, path)
			sess := newSession("s1")
			sess.Workspace, sess.Title, sess.Name, sess.Model, sess.Effort = text, text, text, text, text
			mustCommit(t, s, albedo.Commit{Session: &sess})
			item := textItem(text)
			item.Notes = []string{text}
			mustCommit(t, s, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{item}, Enqueue: []albedo.Queued{{Text: text, Source: text, Notes: []string{text}}}})

			// A second store reads from the file, not from a cache.
			s = openStore(t, path)
			got, err := s.Session(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			for field, v := range map[string]string{"workspace": got.Workspace, "title": got.Title, "name": got.Name, "model": got.Model, "effort": got.Effort} {
				if v != text {
					t.Errorf("session %s = %q, want %q", field, short(v), short(text))
				}
			}
			items, err := s.Items(ctx, sess.ID, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 1 || items[0].Text != text || len(items[0].Notes) != 1 || items[0].Notes[0] != text {
				t.Errorf("items = %+v, want one with the text and note", items)
			}
			queued, err := s.Queued(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(queued) != 1 || queued[0].Text != text || queued[0].Source != text || queued[0].Notes[0] != text {
				t.Errorf("queued = %+v, want one with the text, source and note", queued)
			}

			v, err := s.InsertVent(ctx, albedo.Vent{Topic: text, Title: text, Message: text, Suggestion: text, Workspace: text, SessionID: sess.ID})
			if err != nil {
				t.Fatal(err)
			}
			v.Reply, v.Resolution, v.ResolvingSessionID = text, text, text
			updated, err := s.UpdateVent(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := s.Vent(ctx, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []albedo.Vent{updated, stored} {
				for field, v := range map[string]string{"topic": got.Topic, "title": got.Title, "message": got.Message, "suggestion": got.Suggestion, "cwd": got.Workspace, "reply": got.Reply, "resolution": got.Resolution, "resolving session": got.ResolvingSessionID} {
					if v != text {
						t.Errorf("vent %s = %q, want %q", field, short(v), short(text))
					}
				}
			}
		})
	}
}

// TestOddIDsAreNotFound looks up sessions by ids no session can have: the
// answer is ENotFound, never a failure of the SQL.
func TestOddIDsAreNotFound(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testPath(t))
	for name, id := range oddTexts {
		t.Run(name, func(t *testing.T) {
			_, err := s.Items(ctx, id, 0, 0)
			wantCode(t, err, albedo.ENotFound)
			_, err = s.Queued(ctx, id)
			wantCode(t, err, albedo.ENotFound)
			_, err = s.Commit(ctx, albedo.Commit{SessionID: id, Items: []albedo.Item{textItem("x")}})
			wantCode(t, err, albedo.ENotFound)
		})
	}
}

// short cuts a long string for a failure message.
func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
