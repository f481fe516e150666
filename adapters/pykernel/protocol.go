package pykernel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/albedo-agent/albedo/albedo"
)

// maxFrame bounds the size of a frame from a kernel. The kernel caps what a
// cell reports, so a larger frame means the channel is broken.
const maxFrame = 64 << 20

// request is a frame from the daemon to a kernel.
type request struct {
	Type   string `json:"type"`
	ID     int64  `json:"id"`
	Code   string `json:"code,omitempty"`
	Cwd    string `json:"cwd,omitempty"`
	Marker string `json:"marker,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	// HostCalls declares the cell's host calls (a JSON array of
	// albedo.HostCallDecl) when they differ from those last sent.
	HostCalls json.RawMessage `json:"host_calls,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// event is a frame from a kernel to the daemon.
type event struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`

	// ready
	PID        int    `json:"pid"`
	Python     string `json:"python"`
	Executable string `json:"executable"`

	// call
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`

	// image
	Mime string `json:"mime"`
	Data string `json:"data"`

	// job_started, job_ended, job_wake
	Job        int   `json:"job"`
	Exit       int   `json:"exit"`
	DurationMS int64 `json:"duration_ms"`
	// Wakes, on job_ended, says that a job_wake follows at once.
	Wakes bool `json:"wakes"`

	// done
	Status    string       `json:"status"`
	Value     *string      `json:"value"`
	Error     string       `json:"error"`
	Exception string       `json:"exception"`
	Trace     albedo.Trace `json:"trace"`
	Marked    bool         `json:"marked"`
}

// writeFrame writes body as one frame in a single Write.
func writeFrame(w io.Writer, body []byte) error {
	frame := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(frame, uint32(len(body)))
	copy(frame[4:], body)
	_, err := w.Write(frame)
	return err
}

// readFrame reads one frame's body; io.EOF means the stream ended cleanly
// between frames.
func readFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(head[:])
	if size > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes exceeds the limit of %d", size, maxFrame)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the stream ended inside the frame
		}
		return nil, fmt.Errorf("reading a frame of %d bytes: %w", size, err)
	}
	return body, nil
}
