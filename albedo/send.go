package albedo

// Message is what a user sends to a session.
type Message struct {
	Text  string
	Image *ImageInput
}
