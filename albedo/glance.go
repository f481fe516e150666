package albedo

// Glance is one item an extension contributes to a session's sidebar:
// "extension" names it; the other fields are the extension's own. Values
// are strings and float64 numbers, as a JSON client would decode them.
type Glance map[string]any
