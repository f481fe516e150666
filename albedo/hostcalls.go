package albedo

// HostCallDecl declares a function a running cell may call back into
// albedo: the kernel offers it to the cell as an async global under its
// name, whose arguments it sends as a JSON object.
type HostCallDecl struct {
	// Name is the global's name, a Python identifier.
	Name string
	// Doc is its docstring.
	Doc string
	// Params are its parameters in order: a cell passes them by position
	// or by name.
	Params []HostParam
}

// HostParam is a parameter of a host call.
type HostParam struct {
	Name string
	// Optional parameters may be left out, and are then absent from the
	// arguments; they come after the required ones.
	Optional bool
	// Keywords makes the parameter, the last, collect the keyword
	// arguments a cell passes (Python's **name) as a JSON object; the
	// parameters before it are then passed by position only.
	Keywords bool
}

// HostCall is a host call with the function that answers it.
type HostCall struct {
	HostCallDecl
	Func HostFunc
}

// ModelVent is a vent as a cell sees it: plain values, an integer id.
type ModelVent struct {
	ID                 int64  `json:"id"`
	Topic              string `json:"topic"`
	Title              string `json:"title"`
	Message            string `json:"message"`
	Suggestion         string `json:"suggestion"`
	Status             string `json:"status"`
	SessionID          string `json:"session_id"`
	Workspace          string `json:"workspace"`
	Reply              string `json:"reply"`
	Resolution         string `json:"resolution"`
	ResolvingSessionID string `json:"resolving_session_id"`
	CreatedAt          string `json:"created_at"`
	UpdatedAt          string `json:"updated_at"`
}
