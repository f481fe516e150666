package sqlite

import (
	"database/sql"

	"github.com/albedo-agent/albedo/albedo"
)

// imageColumns are the columns of an attached image, shared by items and
// queued messages. ImageMime is NULL when there is no image.
type imageColumns struct {
	ImageMime   sql.NullString `bun:"image_mime"`
	ImageWidth  int            `bun:"image_width"`
	ImageHeight int            `bun:"image_height"`
	ImageBytes  int            `bun:"image_bytes"`
	ImageData   []byte         `bun:"image_data"`
}

// image returns the image the columns hold, or nil.
func (c *imageColumns) image() *albedo.Image {
	if !c.ImageMime.Valid {
		return nil
	}
	return &albedo.Image{
		MimeType: c.ImageMime.String,
		Width:    c.ImageWidth,
		Height:   c.ImageHeight,
		Bytes:    c.ImageBytes,
		Data:     c.ImageData,
	}
}

// imageValues are the arguments for the image columns of an insert.
type imageValues struct {
	mime                 any // nil without an image
	width, height, bytes int
	data                 []byte
}

// imageArgs returns the arguments that store img, which may be nil.
func imageArgs(img *albedo.Image) imageValues {
	if img == nil {
		return imageValues{}
	}
	return imageValues{img.MimeType, img.Width, img.Height, img.Bytes, img.Data}
}
