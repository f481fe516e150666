package pykernel

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	bodies := []string{`{"type":"ready"}`, ``, `{"type":"done","id":1}`}
	for _, body := range bodies {
		if err := writeFrame(&buf, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range bodies {
		got, err := readFrame(&buf)
		if err != nil || string(got) != want {
			t.Fatalf("readFrame = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := readFrame(&buf); !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}

func TestBrokenFrames(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
	}{
		{"short header", []byte{0, 0}},
		{"short body", []byte{0, 0, 0, 5, 'a', 'b'}},
		{"too large", []byte{0xff, 0xff, 0xff, 0xff}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readFrame(bytes.NewReader(tt.input))
			if err == nil || errors.Is(err, io.EOF) {
				t.Errorf("readFrame = %v, want an error other than io.EOF", err)
			}
		})
	}
}

func TestFrameBodyReadErrorKept(t *testing.T) {
	cause := errors.New("pipe broke")
	r := io.MultiReader(bytes.NewReader([]byte{0, 0, 0, 5, 'a'}), iotest.ErrReader(cause))
	if _, err := readFrame(r); !errors.Is(err, cause) {
		t.Errorf("readFrame = %v, want it to wrap %v", err, cause)
	}
}
