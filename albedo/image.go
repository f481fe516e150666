package albedo

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image"
	_ "image/gif"  // GIF headers for image.DecodeConfig
	_ "image/jpeg" // JPEG headers
	_ "image/png"  // PNG headers
	"io"

	_ "golang.org/x/image/webp" // WebP headers
)

// MaxImageBytes caps the decoded size of one attached image.
const MaxImageBytes = 20 << 20

// ImageInput is an image as a client sends it: base64 data and the
// metadata the client claims for it.
type ImageInput struct {
	MimeType string
	Data     string
	Width    int
	Height   int
	Bytes    int
}

// DecodeImage decodes an attached image and checks the declared metadata
// against the data: the MIME type, width and height read from the image's
// own header, and the byte count. Any disagreement is an EImageMismatch
// error; undecodable input is EInvalid.
func DecodeImage(in ImageInput) (*Image, error) {
	if in.Data == "" {
		return nil, Errorf(EInvalid, "image has no data")
	}
	if base64.StdEncoding.DecodedLen(len(in.Data)) > MaxImageBytes+3 {
		return nil, Errorf(EInvalid, "image is larger than %d bytes", MaxImageBytes)
	}
	data, err := base64.StdEncoding.DecodeString(in.Data)
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(in.Data); err != nil {
			return nil, Errorf(EInvalid, "image data is not valid base64: %v", err)
		}
	}
	img, err := ImageOf(data)
	if err != nil {
		return nil, err
	}
	switch {
	case in.MimeType != img.MimeType:
		return nil, Errorf(EImageMismatch, "image is %s, not the declared %q", img.MimeType, in.MimeType)
	case in.Width != img.Width || in.Height != img.Height:
		return nil, Errorf(EImageMismatch, "image is %dx%d, not the declared %dx%d", img.Width, img.Height, in.Width, in.Height)
	case in.Bytes != img.Bytes:
		return nil, Errorf(EImageMismatch, "image has %d bytes, not the declared %d", img.Bytes, in.Bytes)
	}
	return img, nil
}

// imageHeader reads the type and size from an image's header, through the
// standard library's decoders and golang.org/x/image/webp. It needs only
// the header. A PNG cut inside its header chunk (the contract's example
// image is the first 24 bytes of one) is read by hand: the decoder wants
// the whole chunk and its checksum, and the size is at fixed places before
// them.
func imageHeader(b []byte) (mime string, w, h int, ok bool) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err == nil {
		return "image/" + format, cfg.Width, cfg.Height, true
	}
	if format == "png" && errors.Is(err, io.ErrUnexpectedEOF) && len(b) >= 24 && string(b[12:16]) == "IHDR" {
		return "image/png", int(binary.BigEndian.Uint32(b[16:])), int(binary.BigEndian.Uint32(b[20:])), true
	}
	return "", 0, 0, false
}

// ImageOf checks that data is a PNG, JPEG, GIF or WebP image of at most
// MaxImageBytes, as an upload is checked, and returns it with the metadata
// read from its header.
func ImageOf(data []byte) (*Image, error) {
	if len(data) > MaxImageBytes {
		return nil, Errorf(EInvalid, "image is larger than %d bytes", MaxImageBytes)
	}
	mime, w, h, ok := imageHeader(data)
	if !ok {
		return nil, Errorf(EInvalid, "image data is not a PNG, JPEG, GIF or WebP image")
	}
	return &Image{MimeType: mime, Width: w, Height: h, Bytes: len(data), Data: data}, nil
}

// MaxCellImages caps the images one cell may show.
const MaxCellImages = 4
