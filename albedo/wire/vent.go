package wire

import "time"

// Vent statuses.
const (
	VentOpen         = "open"
	VentAcknowledged = "acknowledged"
	VentResolved     = "resolved"
	VentDismissed    = "dismissed"
)

// ReplyQueued is the state of a reply on its way to the filing session.
const ReplyQueued = "queued"

// Vent is a complaint a model filed in the global ledger.
type Vent struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Topic      string `json:"topic"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion"`
	// SessionID is the filing session, nil when unknown.
	SessionID *string `json:"session_id"`
	// SessionName is the filing session's name, when it has one.
	SessionName string `json:"session_name,omitempty"`
	// SessionTitle is the filing session's title when it filed the vent
	// (its current title for a vent filed before albedo kept it), when
	// known.
	SessionTitle       string  `json:"session_title,omitempty"`
	Workspace          string  `json:"workspace"`
	Reply              string  `json:"reply"`
	Resolution         string  `json:"resolution"`
	ResolvingSessionID *string `json:"resolving_session_id"`
	// Revision increases with every change; conditional changes name it.
	Revision  int64 `json:"revision"`
	CreatedAt int64 `json:"created_at"`
	UpdatedAt int64 `json:"updated_at"`
}

// Session returns the id of the filing session, or "".
func (v Vent) Session() string {
	if v.SessionID == nil {
		return ""
	}
	return *v.SessionID
}

// Created returns when the vent was filed.
func (v Vent) Created() time.Time { return time.UnixMilli(v.CreatedAt) }

// Closed reports whether the vent is resolved or dismissed.
func (v Vent) Closed() bool { return v.Status == VentResolved || v.Status == VentDismissed }

// VentPage is one page of the ledger, newest first, as an Agent returns
// it. Next is the cursor of the following page, "" on the last.
type VentPage struct {
	Items []Vent
	Next  string
}

// VentReply is the outcome of a reply.
type VentReply struct {
	// State is ReplyQueued when the note is on its way to the filing
	// session; anything else means that session is gone or unknown (the
	// reply is kept all the same).
	State string
	Vent  Vent
}

// Queued reports whether the reply will reach the filing session.
func (r VentReply) Queued() bool { return r.State == ReplyQueued }

// VentResource wraps a vent the way the extension API returns it.
type VentResource struct {
	Value Vent `json:"value"`
}

// VentList is the answer of GET /extensions/paperclips/items.
type VentList struct {
	Items []VentResource `json:"items"`
	// Next is the cursor of the following page, absent on the last.
	Next string `json:"next,omitempty"`
}

// Page returns the list as an Agent's page.
func (l VentList) Page() VentPage {
	page := VentPage{Items: make([]Vent, len(l.Items)), Next: l.Next}
	for i, it := range l.Items {
		page.Items[i] = it.Value
	}
	return page
}

// VentNotification says what became of a reply: its State.
type VentNotification struct {
	State string `json:"state"`
}

// VentPatched is the answer of PATCH /extensions/paperclips/items/{id}.
type VentPatched struct {
	Notification VentNotification `json:"notification"`
	Resource     VentResource     `json:"resource"`
}

// Reply returns the answer as an Agent's reply.
func (p VentPatched) Reply() VentReply {
	return VentReply{State: p.Notification.State, Vent: p.Resource.Value}
}
