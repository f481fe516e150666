package albedo

import "github.com/albedo-agent/albedo/albedo/wire"

// Glance is one item an extension contributes to a session's sidebar:
// "extension" names it; the other fields are the extension's own. Values
// are strings and float64 numbers, as a JSON client would decode them. It
// is the API's (wire.Glance).
type Glance = wire.Glance
