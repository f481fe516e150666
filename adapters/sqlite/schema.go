package sqlite

// SchemaVersion is the schema version this package writes, kept in the
// database's PRAGMA user_version. Version 0 is an empty file or one written
// by albedo before versioning, holding only a sessions table.
const SchemaVersion = 13

// nowMillis is an SQL expression for the current Unix time in milliseconds.
// It avoids unixepoch(), which SQLite only gained in 3.38, so that older
// tools can still insert rows that rely on the column defaults.
const nowMillis = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)`

// migrations[i] takes the schema from version i to version i+1. A migration
// never changes once released; later changes are new migrations.
func migrations() [SchemaVersion][]string {
	return [SchemaVersion][]string{
		// 1: the sessions table as albedo wrote it before versioning. A legacy
		// file already has it.
		{`CREATE TABLE IF NOT EXISTS sessions (
			id TEXT PRIMARY KEY,
			cwd TEXT NOT NULL,
			model TEXT NOT NULL,
			protocol TEXT NOT NULL,
			stage TEXT NOT NULL DEFAULT 'idle'
		)`},

		// 2: provider bindings, titles, forks and revisions for sessions. The
		// table is rebuilt rather than altered so that every column, the
		// timestamps included, gets a real default. Nothing references
		// sessions yet, so dropping the old table cascades nowhere.
		{
			`CREATE TABLE sessions_v2 (
				id TEXT NOT NULL PRIMARY KEY,
				cwd TEXT NOT NULL,
				provider TEXT NOT NULL DEFAULT 'default',
				model TEXT NOT NULL,
				protocol TEXT NOT NULL,
				effort TEXT NOT NULL DEFAULT '',
				title TEXT NOT NULL DEFAULT 'new session',
				name TEXT NOT NULL DEFAULT '',
				stage TEXT NOT NULL DEFAULT 'idle',
				parent_id TEXT NOT NULL DEFAULT '',
				checkpoint INTEGER NOT NULL DEFAULT 0,
				kernel_used INTEGER NOT NULL DEFAULT 0,
				revision INTEGER NOT NULL DEFAULT 1,
				created_at INTEGER NOT NULL DEFAULT (` + nowMillis + `),
				updated_at INTEGER NOT NULL DEFAULT (` + nowMillis + `)
			)`,
			`INSERT INTO sessions_v2 (id, cwd, model, protocol, stage)
				SELECT id, cwd, model, protocol, stage FROM sessions`,
			`DROP TABLE sessions`,
			`ALTER TABLE sessions_v2 RENAME TO sessions`,
			`CREATE INDEX sessions_recent ON sessions (updated_at DESC, id)`,
		},

		// 3: transcripts, queued messages and the vent ledger. JSON columns
		// are NULL when empty; image_mime is NULL when there is no image.
		// Columns that may be large come last, so that reading the others
		// never walks their overflow pages. Items are clustered by session
		// (WITHOUT ROWID): a transcript reads as one contiguous range.
		{
			`CREATE TABLE items (
				session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
				seq INTEGER NOT NULL,
				kind TEXT NOT NULL,
				timestamp INTEGER NOT NULL DEFAULT 0,
				image_mime TEXT,
				image_width INTEGER NOT NULL DEFAULT 0,
				image_height INTEGER NOT NULL DEFAULT 0,
				image_bytes INTEGER NOT NULL DEFAULT 0,
				text TEXT NOT NULL DEFAULT '',
				source TEXT NOT NULL DEFAULT '',
				notes TEXT,
				call_id TEXT NOT NULL DEFAULT '',
				tool_name TEXT NOT NULL DEFAULT '',
				arguments TEXT NOT NULL DEFAULT '',
				protocol TEXT NOT NULL DEFAULT '',
				result TEXT,
				trace TEXT,
				raw TEXT,
				image_data BLOB,
				PRIMARY KEY (session_id, seq)
			) WITHOUT ROWID`,
			`CREATE TABLE queue (
				id INTEGER PRIMARY KEY AUTOINCREMENT,
				session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
				timestamp INTEGER NOT NULL DEFAULT 0,
				image_mime TEXT,
				image_width INTEGER NOT NULL DEFAULT 0,
				image_height INTEGER NOT NULL DEFAULT 0,
				image_bytes INTEGER NOT NULL DEFAULT 0,
				text TEXT NOT NULL DEFAULT '',
				source TEXT NOT NULL DEFAULT '',
				notes TEXT,
				image_data BLOB
			)`,
			`CREATE INDEX queue_session ON queue (session_id, id)`,
			// Tools outside albedo insert vents with only topic, message and
			// cwd (and sometimes session), so every other column has a
			// default. session is NULL when no session filed the vent.
			`CREATE TABLE paperclips (
				id INTEGER PRIMARY KEY AUTOINCREMENT,
				topic TEXT NOT NULL,
				message TEXT NOT NULL,
				cwd TEXT NOT NULL DEFAULT '',
				session TEXT,
				title TEXT NOT NULL DEFAULT '',
				suggestion TEXT NOT NULL DEFAULT '',
				status TEXT NOT NULL DEFAULT 'open',
				reply TEXT NOT NULL DEFAULT '',
				resolution TEXT NOT NULL DEFAULT '',
				resolving_session TEXT NOT NULL DEFAULT '',
				revision INTEGER NOT NULL DEFAULT 1,
				created_at INTEGER NOT NULL DEFAULT (` + nowMillis + `),
				updated_at INTEGER NOT NULL DEFAULT (` + nowMillis + `)
			)`,
		},

		// 4: archived sessions, left out of the listing unless asked for.
		{`ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0`},

		// 5: item flags (refusal, truncated, partial, commentary). The table
		// is rebuilt so that the small column comes before the large ones.
		{
			`CREATE TABLE items_v5 (
				session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
				seq INTEGER NOT NULL,
				kind TEXT NOT NULL,
				timestamp INTEGER NOT NULL DEFAULT 0,
				flags INTEGER NOT NULL DEFAULT 0,
				image_mime TEXT,
				image_width INTEGER NOT NULL DEFAULT 0,
				image_height INTEGER NOT NULL DEFAULT 0,
				image_bytes INTEGER NOT NULL DEFAULT 0,
				text TEXT NOT NULL DEFAULT '',
				source TEXT NOT NULL DEFAULT '',
				notes TEXT,
				call_id TEXT NOT NULL DEFAULT '',
				tool_name TEXT NOT NULL DEFAULT '',
				arguments TEXT NOT NULL DEFAULT '',
				protocol TEXT NOT NULL DEFAULT '',
				result TEXT,
				trace TEXT,
				raw TEXT,
				image_data BLOB,
				PRIMARY KEY (session_id, seq)
			) WITHOUT ROWID`,
			`INSERT INTO items_v5 (session_id, seq, kind, timestamp, image_mime, image_width,
				image_height, image_bytes, text, source, notes, call_id, tool_name, arguments,
				protocol, result, trace, raw, image_data)
				SELECT session_id, seq, kind, timestamp, image_mime, image_width,
				image_height, image_bytes, text, source, notes, call_id, tool_name, arguments,
				protocol, result, trace, raw, image_data FROM items`,
			`DROP TABLE items`,
			`ALTER TABLE items_v5 RENAME TO items`,
		},

		// 6: compaction states, one per session: the summary that stands in
		// for the start of a transcript in model requests.
		{`CREATE TABLE compactions (
			session_id TEXT NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
			users INTEGER NOT NULL,
			fingerprint TEXT NOT NULL,
			items INTEGER NOT NULL DEFAULT 0,
			strategy TEXT NOT NULL DEFAULT '',
			at INTEGER NOT NULL DEFAULT 0,
			summary TEXT NOT NULL
		)`},

		// 7: the request ledger, one row per attempt at a model request.
		// Token counts and status are NULL when the provider sent none.
		{
			`CREATE TABLE requests (
				id INTEGER PRIMARY KEY AUTOINCREMENT,
				session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
				kind TEXT NOT NULL,
				provider TEXT NOT NULL DEFAULT '',
				model TEXT NOT NULL DEFAULT '',
				protocol TEXT NOT NULL DEFAULT '',
				started INTEGER NOT NULL DEFAULT 0,
				finished INTEGER NOT NULL DEFAULT 0,
				outcome TEXT NOT NULL,
				status INTEGER,
				error TEXT NOT NULL DEFAULT '',
				input_tokens INTEGER,
				cached_input_tokens INTEGER,
				output_tokens INTEGER,
				reasoning_tokens INTEGER,
				items INTEGER NOT NULL DEFAULT 0,
				bytes INTEGER NOT NULL DEFAULT 0
			)`,
			`CREATE INDEX requests_session ON requests (session_id, id)`,
		},

		// 8: the filing session's title when it filed a vent. Vents filed
		// before, or by tools outside albedo, hold '' and are shown with the
		// session's current title.
		{`ALTER TABLE paperclips ADD COLUMN session_title TEXT NOT NULL DEFAULT ''`},

		// 9: long texts in pieces. An item whose text_size is not 0 keeps its
		// text in item_pieces, in order, text_size bytes in all, and '' in
		// its text column: a long answer is written and read a piece at a
		// time rather than bound and built whole in SQLite's memory.
		{
			`ALTER TABLE items ADD COLUMN text_size INTEGER NOT NULL DEFAULT 0`,
			`CREATE TABLE item_pieces (
				session_id TEXT NOT NULL,
				seq INTEGER NOT NULL,
				piece INTEGER NOT NULL,
				text TEXT NOT NULL,
				PRIMARY KEY (session_id, seq, piece),
				FOREIGN KEY (session_id, seq) REFERENCES items (session_id, seq) ON DELETE CASCADE
			) WITHOUT ROWID`,
		},

		// 10: the compaction under way, so that one albedo died in is done
		// again when its session resumes.
		{`ALTER TABLE sessions ADD COLUMN compacting TEXT NOT NULL DEFAULT ''`},

		// 11: every long column in pieces. item_pieces gains the column its
		// pieces belong to (field: text, arguments, result, trace, raw or
		// image, for image_data), each with a size column on the items row. The items table is
		// rebuilt so that every small column, the sizes included, comes
		// before the large ones: reading them never walks a long value's
		// overflow pages. Texts already in pieces keep them; long values of
		// other columns stored whole before stay whole and read as before.
		// The request ledger gains an index for the newest row of a kind.
		{
			`CREATE TABLE items_v11 (
				session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
				seq INTEGER NOT NULL,
				kind TEXT NOT NULL,
				timestamp INTEGER NOT NULL DEFAULT 0,
				flags INTEGER NOT NULL DEFAULT 0,
				text_size INTEGER NOT NULL DEFAULT 0,
				arguments_size INTEGER NOT NULL DEFAULT 0,
				result_size INTEGER NOT NULL DEFAULT 0,
				trace_size INTEGER NOT NULL DEFAULT 0,
				raw_size INTEGER NOT NULL DEFAULT 0,
				image_size INTEGER NOT NULL DEFAULT 0,
				image_mime TEXT,
				image_width INTEGER NOT NULL DEFAULT 0,
				image_height INTEGER NOT NULL DEFAULT 0,
				image_bytes INTEGER NOT NULL DEFAULT 0,
				source TEXT NOT NULL DEFAULT '',
				call_id TEXT NOT NULL DEFAULT '',
				tool_name TEXT NOT NULL DEFAULT '',
				protocol TEXT NOT NULL DEFAULT '',
				notes TEXT,
				text TEXT NOT NULL DEFAULT '',
				arguments TEXT NOT NULL DEFAULT '',
				result TEXT,
				trace TEXT,
				raw TEXT,
				image_data BLOB,
				PRIMARY KEY (session_id, seq)
			) WITHOUT ROWID`,
			`INSERT INTO items_v11 (session_id, seq, kind, timestamp, flags, text_size,
				image_mime, image_width, image_height, image_bytes, source, call_id, tool_name,
				protocol, notes, text, arguments, result, trace, raw, image_data)
				SELECT session_id, seq, kind, timestamp, flags, text_size,
				image_mime, image_width, image_height, image_bytes, source, call_id, tool_name,
				protocol, notes, text, arguments, result, trace, raw, image_data FROM items`,
			`CREATE TABLE item_pieces_v11 (
				session_id TEXT NOT NULL,
				seq INTEGER NOT NULL,
				field TEXT NOT NULL,
				piece INTEGER NOT NULL,
				data TEXT NOT NULL,
				PRIMARY KEY (session_id, seq, field, piece),
				FOREIGN KEY (session_id, seq) REFERENCES items_v11 (session_id, seq) ON DELETE CASCADE
			) WITHOUT ROWID`,
			`INSERT INTO item_pieces_v11 (session_id, seq, field, piece, data)
				SELECT session_id, seq, 'text', piece, text FROM item_pieces`,
			// The pieces go first: dropping items deletes its rows, which
			// would cascade to the pieces that still referenced it.
			`DROP TABLE item_pieces`,
			`DROP TABLE items`,
			`ALTER TABLE items_v11 RENAME TO items`,
			`ALTER TABLE item_pieces_v11 RENAME TO item_pieces`,
			`CREATE INDEX requests_session_kind ON requests (session_id, kind, id)`,
		},

		// 12: every value whole in its row. The values kept in pieces are
		// folded back into their columns, byte for byte, and item_pieces and
		// the size columns go; SQLite keeps a long value in overflow pages
		// of its own, after the small columns.
		{
			`CREATE TABLE items_v12 (
				session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
				seq INTEGER NOT NULL,
				kind TEXT NOT NULL,
				timestamp INTEGER NOT NULL DEFAULT 0,
				flags INTEGER NOT NULL DEFAULT 0,
				image_mime TEXT,
				image_width INTEGER NOT NULL DEFAULT 0,
				image_height INTEGER NOT NULL DEFAULT 0,
				image_bytes INTEGER NOT NULL DEFAULT 0,
				source TEXT NOT NULL DEFAULT '',
				call_id TEXT NOT NULL DEFAULT '',
				tool_name TEXT NOT NULL DEFAULT '',
				protocol TEXT NOT NULL DEFAULT '',
				notes TEXT,
				text TEXT NOT NULL DEFAULT '',
				arguments TEXT NOT NULL DEFAULT '',
				result TEXT,
				trace TEXT,
				raw TEXT,
				image_data BLOB,
				PRIMARY KEY (session_id, seq)
			) WITHOUT ROWID`,
			`INSERT INTO items_v12 (session_id, seq, kind, timestamp, flags, image_mime,
				image_width, image_height, image_bytes, source, call_id, tool_name, protocol,
				notes, text, arguments, result, trace, raw, image_data)
				SELECT session_id, seq, kind, timestamp, flags, image_mime,
				image_width, image_height, image_bytes, source, call_id, tool_name, protocol, notes,
				CASE WHEN text_size > 0 THEN ` + foldedPieces("text") + ` ELSE text END,
				CASE WHEN arguments_size > 0 THEN ` + foldedPieces("arguments") + ` ELSE arguments END,
				CASE WHEN result_size > 0 THEN ` + foldedPieces("result") + ` ELSE result END,
				CASE WHEN trace_size > 0 THEN ` + foldedPieces("trace") + ` ELSE trace END,
				CASE WHEN raw_size > 0 THEN ` + foldedPieces("raw") + ` ELSE raw END,
				CASE WHEN image_size > 0 THEN CAST(` + foldedPieces("image") + ` AS BLOB) ELSE image_data END
				FROM items`,
			`DROP TABLE item_pieces`,
			`DROP TABLE items`,
			`ALTER TABLE items_v12 RENAME TO items`,
		},

		// 13: a Responses item whose Raw leaves its long text out says so
		// in its flags (albedo.FlagRawWithoutText, 16); before, a Raw
		// shorter than the text (a call's arguments) was how it was told.
		{`UPDATE items SET flags = flags | 16
			WHERE protocol = 'responses' AND kind IN ('assistant', 'reasoning', 'tool_call') AND raw IS NOT NULL
			AND length(CAST(raw AS BLOB)) < length(CAST(CASE kind WHEN 'tool_call' THEN arguments ELSE text END AS BLOB))`},
	}
}

// foldedPieces is an SQL expression, for a row of items, for the value of
// its column field that version 11 kept in pieces: the pieces joined in
// order, byte for byte. Pieces were written in their row's transaction and
// deleted with it, so every sized value has them.
func foldedPieces(field string) string {
	return `(SELECT group_concat(p.data, '' ORDER BY p.piece) FROM item_pieces p
		WHERE p.session_id = items.session_id AND p.seq = items.seq AND p.field = '` + field + `')`
}
