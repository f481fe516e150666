package inflection

import "testing"

func TestPlural(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"session", "sessions"},
		{"item", "items"},
		{"queue", "queues"},
		{"paperclip", "paperclips"},
		{"sessions", "sessions"},
		{"box", "boxes"},
		{"class", "classes"},
		{"match", "matches"},
		{"wish", "wishes"},
		{"status", "statuses"},
		{"quiz", "quizzes"},
		{"analysis", "analyses"},
		{"story", "stories"},
		{"key", "keys"},
		{"day", "days"},
		{"photo", "photos"},
		{"hero", "heroes"},
		{"roof", "roofs"},
		{"knife", "knives"},
		{"shelf", "shelves"},
		{"person", "people"},
		{"people", "people"},
		{"child", "children"},
		{"index", "indices"},
		{"datum", "data"},
		{"sheep", "sheep"},
		{"information", "information"},
		{"session_row", "session_rows"},
		{"transcript_entry", "transcript_entries"},
		{"user_person", "user_people"},
		{"vent-reply", "vent-replies"},
		{"SessionRow", "SessionRows"},
		{"TranscriptEntry", "TranscriptEntries"},
		{"HTTPServer", "HTTPServers"},
		{"URL", "URLS"},
		{"Person", "People"},
		{"item_2", "item_2"},
		{"café", "cafés"},
	}
	for _, tt := range tests {
		if got := Plural(tt.in); got != tt.want {
			t.Errorf("Plural(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzPlural(f *testing.F) {
	for _, s := range []string{"session", "SessionRow", "a_b", "ÅÄÖ", "x1", "ss"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Plural(s)
		head, word := lastWord(s)
		if head+word != s {
			t.Fatalf("lastWord(%q) = %q + %q", s, head, word)
		}
		if len(got) < len(head) || got[:len(head)] != head {
			t.Fatalf("Plural(%q) = %q changed more than the last word", s, got)
		}
	})
}
