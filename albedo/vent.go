package albedo

import "time"

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
	Reply     string
	// Resolution is the model's note when it resolved the vent.
	Resolution         string
	ResolvingSessionID string
	// Revision increases with every write; it guards conditional updates.
	Revision  int64
	CreatedAt time.Time
	UpdatedAt time.Time
}
