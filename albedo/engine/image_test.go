package engine_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// seedPNG is a PNG truncated after its IHDR size fields: 24 bytes of a 2x3
// image.
const seedPNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAAD"

func encodeJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeGIF(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpHeader builds the first bytes of a WebP file whose first chunk is
// chunk with the given payload.
func webpHeader(chunk string, payload []byte) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WEBP" + chunk)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = append(b, payload...)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

func webpLossless(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	return webpHeader("VP8L", binary.LittleEndian.AppendUint32([]byte{0x2f}, bits))
}

func webpLossy(w, h int) []byte {
	p := []byte{0x50, 0x02, 0x00, 0x9d, 0x01, 0x2a}
	p = binary.LittleEndian.AppendUint16(p, uint16(w))
	p = binary.LittleEndian.AppendUint16(p, uint16(h))
	return webpHeader("VP8 ", p)
}

func webpExtended(w, h int) []byte {
	p := []byte{0x10, 0, 0, 0}
	p = append(p, byte(w-1), byte((w-1)>>8), byte((w-1)>>16))
	p = append(p, byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
	return webpHeader("VP8X", p)
}

func TestDecodeImage(t *testing.T) {
	jpg := encodeJPEG(t, 5, 7)
	gf := encodeGIF(t, 9, 4)
	lossless, lossy, extended := webpLossless(300, 17), webpLossy(640, 480), webpExtended(70000, 3)
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name string
		in   albedo.ImageInput
		code string // "" when accepted
	}{
		{"seed png", albedo.ImageInput{MimeType: "image/png", Data: seedPNG, Width: 2, Height: 3, Bytes: 24}, ""},
		{"png wrong width", albedo.ImageInput{MimeType: "image/png", Data: seedPNG, Width: 3, Height: 3, Bytes: 24}, albedo.EImageMismatch},
		{"png wrong height", albedo.ImageInput{MimeType: "image/png", Data: seedPNG, Width: 2, Height: 2, Bytes: 24}, albedo.EImageMismatch},
		{"png wrong bytes", albedo.ImageInput{MimeType: "image/png", Data: seedPNG, Width: 2, Height: 3, Bytes: 25}, albedo.EImageMismatch},
		{"png wrong mime", albedo.ImageInput{MimeType: "image/jpeg", Data: seedPNG, Width: 2, Height: 3, Bytes: 24}, albedo.EImageMismatch},
		{"png no mime", albedo.ImageInput{Data: seedPNG, Width: 2, Height: 3, Bytes: 24}, albedo.EImageMismatch},
		{"unpadded base64", albedo.ImageInput{MimeType: "image/gif", Data: strings.TrimRight(b64(gf), "="), Width: 9, Height: 4, Bytes: len(gf)}, ""},
		{"no data", albedo.ImageInput{MimeType: "image/png", Width: 2, Height: 3, Bytes: 24}, albedo.EInvalid},
		{"bad base64", albedo.ImageInput{MimeType: "image/png", Data: "not*base64!", Width: 2, Height: 3, Bytes: 24}, albedo.EInvalid},
		{"unknown format", albedo.ImageInput{MimeType: "image/png", Data: b64([]byte("plain text, not a picture")), Width: 2, Height: 3, Bytes: 25}, albedo.EInvalid},
		{"png too short", albedo.ImageInput{MimeType: "image/png", Data: b64([]byte("\x89PNG\r\n\x1a\n")), Bytes: 8}, albedo.EInvalid},
		{"jpeg without frame", albedo.ImageInput{MimeType: "image/jpeg", Data: b64([]byte{0xFF, 0xD8, 0xFF, 0xD9}), Bytes: 4}, albedo.EInvalid},
		{"too large", albedo.ImageInput{MimeType: "image/png", Data: strings.Repeat("A", (albedo.MaxImageBytes/3+2)*4), Bytes: 1}, albedo.EInvalid},
		{"jpeg", albedo.ImageInput{MimeType: "image/jpeg", Data: b64(jpg), Width: 5, Height: 7, Bytes: len(jpg)}, ""},
		{"jpeg swapped size", albedo.ImageInput{MimeType: "image/jpeg", Data: b64(jpg), Width: 7, Height: 5, Bytes: len(jpg)}, albedo.EImageMismatch},
		{"gif", albedo.ImageInput{MimeType: "image/gif", Data: b64(gf), Width: 9, Height: 4, Bytes: len(gf)}, ""},
		{"gif as png", albedo.ImageInput{MimeType: "image/png", Data: b64(gf), Width: 9, Height: 4, Bytes: len(gf)}, albedo.EImageMismatch},
		{"webp lossless", albedo.ImageInput{MimeType: "image/webp", Data: b64(lossless), Width: 300, Height: 17, Bytes: len(lossless)}, ""},
		{"webp lossy", albedo.ImageInput{MimeType: "image/webp", Data: b64(lossy), Width: 640, Height: 480, Bytes: len(lossy)}, ""},
		{"webp extended", albedo.ImageInput{MimeType: "image/webp", Data: b64(extended), Width: 70000, Height: 3, Bytes: len(extended)}, ""},
		{"webp wrong height", albedo.ImageInput{MimeType: "image/webp", Data: b64(lossy), Width: 640, Height: 481, Bytes: len(lossy)}, albedo.EImageMismatch},
		{"webp unknown chunk", albedo.ImageInput{MimeType: "image/webp", Data: b64(webpHeader("ALPH", make([]byte, 10))), Bytes: 30}, albedo.EInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img, err := albedo.DecodeImage(tc.in)
			if tc.code != "" {
				wantCode(t, err, tc.code)
				if img != nil {
					t.Errorf("refused image returned %+v", img)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeImage: %v", err)
			}
			want := albedo.ImageMeta{MimeType: tc.in.MimeType, Width: tc.in.Width, Height: tc.in.Height, Bytes: tc.in.Bytes}
			if *img.Meta() != want || len(img.Data) != tc.in.Bytes {
				t.Fatalf("image = %+v (%d bytes of data), want %+v", img.Meta(), len(img.Data), want)
			}
		})
	}
}

func TestImageMetaOfNil(t *testing.T) {
	var img *albedo.Image
	if img.Meta() != nil {
		t.Fatal("nil image has metadata")
	}
}
