package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestAStreamResumesAfterLastEventIDOrAfter(t *testing.T) {
	srv, svc := newStreamAPI(t, fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return fakes.Text("hi") }), 0)
	ctx := context.Background()
	sess, err := svc.CreateSession(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two"} {
		if _, err := svc.Send(ctx, sess.ID, albedo.Message{Text: text}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Wait(ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	all := snapshotSeqs(t, srv.URL+"/sessions/"+sess.ID+"/stream", nil)
	if len(all) < 6 {
		t.Fatalf("the whole snapshot holds %v", all)
	}
	from := all[2]
	tests := []struct {
		name    string
		query   string
		lastID  string
		want    []int64
		wantErr bool
	}{
		{"Last-Event-ID", "", strconv.Itoa(int(from)), all[3:], false},
		{"after, for a browser's new stream", "?after=" + strconv.Itoa(int(from)), "", all[3:], false},
		{"Last-Event-ID wins over after", "?after=0", strconv.Itoa(int(from)), all[3:], false},
		{"after wins over tail", "?tail=1&after=" + strconv.Itoa(int(from)), "", all[3:], false},
		{"tail alone", "?tail=1", "", all[len(all)-1:], false},
		{"an after that is no seq", "?after=x", "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{}
			if tt.lastID != "" {
				headers["Last-Event-ID"] = tt.lastID
			}
			got := snapshotSeqs(t, srv.URL+"/sessions/"+sess.ID+"/stream"+tt.query, headers)
			if tt.wantErr {
				if got != nil {
					t.Fatalf("got %v, want a 400", got)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("snapshot seqs = %v, want %v", got, tt.want)
			}
		})
	}
}

// snapshotSeqs opens a stream and returns the seqs of its snapshot, nil
// when it is refused with a 400. It checks the stream starts with retry.
func snapshotSeqs(t *testing.T, url string, headers map[string]string) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), streamWait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusBadRequest {
		return nil
	}
	r := bufio.NewReader(resp.Body)
	if first, _ := r.ReadString('\n'); !strings.HasPrefix(first, "retry: ") {
		t.Errorf("the stream starts with %q, not retry:", first)
	}
	var batch struct {
		Events []struct {
			Seq int64 `json:"seq"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(readDataLine(t, r)), &batch); err != nil {
		t.Fatal(err)
	}
	seqs := []int64{}
	for _, ev := range batch.Events {
		if ev.Seq > 0 {
			seqs = append(seqs, ev.Seq)
		}
	}
	return seqs
}
