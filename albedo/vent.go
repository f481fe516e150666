package albedo

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// VentStatus is where a vent stands in the user's triage.
type VentStatus string

// Vent statuses. Open and acknowledged vents are live; resolved and
// dismissed ones are closed.
const (
	VentOpen         VentStatus = "open"
	VentAcknowledged VentStatus = "acknowledged"
	VentResolved     VentStatus = "resolved"
	VentDismissed    VentStatus = "dismissed"
)

// Closed reports whether a vent in this status is finished with.
func (s VentStatus) Closed() bool { return s == VentResolved || s == VentDismissed }

// VentTopics returns the topics a vent may have, in display order.
func VentTopics() []string { return []string{"harness", "workflow", "bug", "user", "other"} }

// Vent is a complaint the model filed in the global ledger.
type Vent struct {
	ID         int64
	Topic      string
	Title      string
	Message    string
	Suggestion string
	Status     VentStatus
	// SessionID and Workspace say who filed the vent; SessionID may be empty.
	SessionID string
	Workspace string
	// SessionTitle is the filing session's title when it filed the vent,
	// stored with it; "" for a vent filed before albedo kept it, or by a
	// tool outside albedo. albedo hands such a vent out with the session's
	// current title instead, when the session still exists.
	SessionTitle string
	Reply        string
	// Resolution is the model's note when it resolved the vent.
	Resolution         string
	ResolvingSessionID string
	// Revision increases with every write; it guards conditional updates.
	Revision  int64
	CreatedAt time.Time
	UpdatedAt time.Time
	// SessionName is the filing session's name, when it has one. It is
	// not stored with the vent: albedo fills it in when it hands vents out.
	SessionName string
}

// Limits on the text fields of a vent, in characters.
const (
	maxVentTitle = 200
	maxVentText  = 8000
)

// NewVent is what the model files.
type NewVent struct {
	Topic      string
	Message    string
	Suggestion string
	Title      string
}

// Validate checks a new vent against the ledger's rules.
func (n NewVent) Validate() error {
	if !slices.Contains(VentTopics(), n.Topic) {
		return Errorf(EInvalid, "unknown vent topic %q: use one of %s", n.Topic, strings.Join(VentTopics(), ", "))
	}
	if strings.TrimSpace(n.Message) == "" {
		return Errorf(EInvalid, "a vent needs a message that says what got in the way")
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{{"title", n.Title, maxVentTitle}, {"message", n.Message, maxVentText}, {"suggestion", n.Suggestion, maxVentText}} {
		if utf8.RuneCountInString(f.value) > f.max {
			return Errorf(EInvalid, "a vent %s has at most %d characters", f.name, f.max)
		}
	}
	return nil
}

// DisplayTitle is the vent's title, or its message's first line when it
// has none. A title that was given is kept as given, blank or not, as
// every field the model files is.
func (v Vent) DisplayTitle() string {
	if v.Title != "" {
		return v.Title
	}
	return Preview(v.Message, maxVentTitle)
}

// Resolve closes a vent with the model's note of what fixed it.
func (v *Vent) Resolve(sessionID, note string) error {
	if strings.TrimSpace(note) == "" {
		return Errorf(EInvalid, "say what fixed the vent")
	}
	if utf8.RuneCountInString(note) > maxVentText {
		return Errorf(EInvalid, "a resolution note has at most %d characters", maxVentText)
	}
	if v.Status.Closed() {
		return Errorf(EConflict, "vent #%d is already %s", v.ID, v.Status)
	}
	v.Status, v.Resolution, v.ResolvingSessionID = VentResolved, strings.TrimSpace(note), sessionID
	return nil
}

// reply records the user's answer; an open vent becomes acknowledged.
func (v *Vent) SetReply(text string) error {
	if strings.TrimSpace(text) == "" {
		return Errorf(EInvalid, "a reply must not be empty")
	}
	if utf8.RuneCountInString(text) > maxVentText {
		return Errorf(EInvalid, "a reply has at most %d characters", maxVentText)
	}
	v.Reply = text
	if v.Status == VentOpen {
		v.Status = VentAcknowledged
	}
	return nil
}
