package albedo

// Configuration is a change of a session's configuration: the members
// that are not nil are set.
type Configuration struct {
	Name     *string
	Archived *bool
}

// Archived filters a listing by archiving.
type Archived string
