package albedo

// ReplySource marks the user message that carries a reply to a vent.
const ReplySource = "paperclips"

// VentPatch is the user's change to a vent: a reply, a status, or both.
type VentPatch struct {
	Reply  *string
	Status *VentStatus
}
