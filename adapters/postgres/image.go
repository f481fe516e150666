package postgres

import "github.com/albedo-agent/albedo/albedo"

// imageValues are the arguments for the image columns of an insert.
type imageValues struct {
	mime                 any // nil (NULL) without an image
	width, height, bytes int
	data                 []byte
}

// imageArgs returns the arguments that store img, which may be nil.
func imageArgs(img *albedo.Image) imageValues {
	if img == nil {
		return imageValues{}
	}
	return imageValues{bin(img.MimeType), img.Width, img.Height, img.Bytes, img.Data}
}
