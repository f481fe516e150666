package albedo

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
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
	if len(data) > MaxImageBytes {
		return nil, Errorf(EInvalid, "image is larger than %d bytes", MaxImageBytes)
	}
	mime, w, h, ok := sniffImage(data)
	if !ok {
		return nil, Errorf(EInvalid, "image data is not a PNG, JPEG, GIF or WebP image")
	}
	switch {
	case in.MimeType != mime:
		return nil, Errorf(EImageMismatch, "image is %s, not the declared %q", mime, in.MimeType)
	case in.Width != w || in.Height != h:
		return nil, Errorf(EImageMismatch, "image is %dx%d, not the declared %dx%d", w, h, in.Width, in.Height)
	case in.Bytes != len(data):
		return nil, Errorf(EImageMismatch, "image has %d bytes, not the declared %d", len(data), in.Bytes)
	}
	return &Image{MimeType: mime, Width: w, Height: h, Bytes: len(data), Data: data}, nil
}

// sniffImage reads the type and size from an image's header. It needs only
// the header, so a truncated image still yields its declared geometry.
func sniffImage(b []byte) (mime string, w, h int, ok bool) {
	switch {
	case len(b) >= 24 && bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) && string(b[12:16]) == "IHDR":
		return "image/png", int(binary.BigEndian.Uint32(b[16:])), int(binary.BigEndian.Uint32(b[20:])), true
	case len(b) >= 10 && (bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a"))):
		return "image/gif", int(binary.LittleEndian.Uint16(b[6:])), int(binary.LittleEndian.Uint16(b[8:])), true
	case len(b) >= 4 && b[0] == 0xFF && b[1] == 0xD8:
		w, h, ok := jpegSize(b)
		return "image/jpeg", w, h, ok
	case len(b) >= 16 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		w, h, ok := webpSize(b)
		return "image/webp", w, h, ok
	}
	return "", 0, 0, false
}

// jpegSize walks JPEG markers to the first start-of-frame segment.
func jpegSize(b []byte) (int, int, bool) {
	i := 2
	for i+4 <= len(b) {
		if b[i] != 0xFF {
			return 0, 0, false
		}
		marker := b[i+1]
		if marker == 0xFF {
			i++
			continue
		}
		if marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) {
			i += 2
			continue
		}
		length := int(binary.BigEndian.Uint16(b[i+2:]))
		isSOF := marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
		if isSOF {
			if i+9 > len(b) {
				return 0, 0, false
			}
			return int(binary.BigEndian.Uint16(b[i+7:])), int(binary.BigEndian.Uint16(b[i+5:])), true
		}
		i += 2 + length
	}
	return 0, 0, false
}

// webpSize reads the canvas size of a lossy, lossless or extended WebP.
func webpSize(b []byte) (int, int, bool) {
	chunk := string(b[12:16])
	switch {
	case chunk == "VP8 " && len(b) >= 30:
		return int(binary.LittleEndian.Uint16(b[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:]) & 0x3fff), true
	case chunk == "VP8L" && len(b) >= 25:
		bits := binary.LittleEndian.Uint32(b[21:])
		return int(bits&0x3fff) + 1, int((bits>>14)&0x3fff) + 1, true
	case chunk == "VP8X" && len(b) >= 30:
		w := int(b[24]) | int(b[25])<<8 | int(b[26])<<16
		h := int(b[27]) | int(b[28])<<8 | int(b[29])<<16
		return w + 1, h + 1, true
	}
	return 0, 0, false
}

// ImageOf checks that data is a PNG, JPEG, GIF or WebP image of at most
// MaxImageBytes, as an upload is checked, and returns it with the metadata
// read from its header.
func ImageOf(data []byte) (*Image, error) {
	if len(data) > MaxImageBytes {
		return nil, Errorf(EInvalid, "image is larger than %d bytes", MaxImageBytes)
	}
	mime, w, h, ok := sniffImage(data)
	if !ok {
		return nil, Errorf(EInvalid, "image data is not a PNG, JPEG, GIF or WebP image")
	}
	return &Image{MimeType: mime, Width: w, Height: h, Bytes: len(data), Data: data}, nil
}

// MaxCellImages caps the images one cell may show.
const MaxCellImages = 4
