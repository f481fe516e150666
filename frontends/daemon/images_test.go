package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/memstore"
	"github.com/albedo-agent/albedo/frontends/web"
)

// testPicture encodes a w×h picture with enc.
func testPicture(t *testing.T, w, h int, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.White, color.Black})
	img.SetColorIndex(0, 0, 1)
	var buf bytes.Buffer
	if err := enc(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestAnItemsImageIsServedToThePageOnly(t *testing.T) {
	clock := &testClock{}
	logins, err := web.NewLogins(web.LoginOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New()
	srv, _ := newTestAPIWith(t, store, APIOptions{Logins: logins})
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	token := map[string]string{"Authorization": "Bearer " + testToken}
	newSession := func() string {
		resp, body := send(t, srv, webRequest{method: "POST", path: "/sessions", body: `{"workspace": ` + mustJSON(t, t.TempDir()) + `}`, headers: token})
		var s struct{ ID string }
		if resp.StatusCode != http.StatusCreated || json.Unmarshal([]byte(body), &s) != nil {
			t.Fatalf("create session = %d %s", resp.StatusCode, body)
		}
		return s.ID
	}
	id, other := newSession(), newSession()

	pasted := testPicture(t, 3, 2, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	first := testPicture(t, 4, 4, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	second := testPicture(t, 5, 1, func(b *bytes.Buffer, m image.Image) error { return gif.Encode(b, m, nil) })
	shown := func(data []byte, mime string) *albedo.Image {
		return &albedo.Image{MimeType: mime, Bytes: len(data), Data: data}
	}
	// A message with an image (its declared type wrong: the data says
	// what is served), a cell that showed two, then an answer.
	done, err := store.Commit(context.Background(), albedo.Commit{SessionID: id, Items: []albedo.Item{
		{Kind: albedo.KindUser, Text: "look", Image: shown(pasted, "image/jpeg")},
		{Kind: albedo.KindToolCall, CallID: "c1", ToolName: "python", Arguments: `{"code": "show_image('a.png')"}`},
		{Kind: albedo.KindToolOutput, CallID: "c1", ToolName: "python", Text: "{}", Result: &albedo.CellResult{Status: albedo.CellOK}},
		{Kind: albedo.KindToolImage, CallID: "c1", ToolName: "python", Image: shown(first, "image/png")},
		{Kind: albedo.KindToolImage, CallID: "c1", ToolName: "python", Image: shown(second, "image/gif")},
		{Kind: albedo.KindAssistant, Text: "seen"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	user, call, output := done.Items[0].Seq, done.Items[1].Seq, done.Items[2].Seq
	path := func(session string, seq any, n any) string {
		return fmt.Sprintf("/sessions/%s/items/%v/images/%v", session, seq, n)
	}
	cookie := login(t, srv)
	withCookie := map[string]string{"Cookie": cookie}

	tests := []struct {
		name     string
		req      webRequest
		want     int
		wantData []byte
		wantType string
	}{
		{"a message's image, with the cookie, typed by its data", webRequest{path: path(id, user, 0), headers: withCookie}, http.StatusOK, pasted, "image/png"},
		{"a cell's first image", webRequest{path: path(id, output, 0), headers: withCookie}, http.StatusOK, first, "image/png"},
		{"a cell's second image", webRequest{path: path(id, output, 1), headers: withCookie}, http.StatusOK, second, "image/gif"},
		{"with the token", webRequest{path: path(id, user, 0), headers: token}, http.StatusOK, pasted, "image/png"},
		{"without cookie or token", webRequest{path: path(id, user, 0)}, http.StatusUnauthorized, nil, ""},
		{"a rebound Host with the cookie", webRequest{path: path(id, user, 0), host: "attacker.example:" + port, headers: withCookie}, http.StatusForbidden, nil, ""},
		{"a foreign Origin with the cookie", webRequest{path: path(id, user, 0), headers: map[string]string{"Cookie": cookie, "Origin": "https://attacker.example"}}, http.StatusForbidden, nil, ""},
		{"the item through another session", webRequest{path: path(other, user, 0), headers: withCookie}, http.StatusNotFound, nil, ""},
		{"a missing session", webRequest{path: path("no-such-session", user, 0), headers: withCookie}, http.StatusNotFound, nil, ""},
		{"a cell's image past the last", webRequest{path: path(id, output, 2), headers: withCookie}, http.StatusNotFound, nil, ""},
		{"a message's second image", webRequest{path: path(id, user, 1), headers: withCookie}, http.StatusNotFound, nil, ""},
		{"an item without images", webRequest{path: path(id, call, 0), headers: withCookie}, http.StatusNotFound, nil, ""},
		{"an item past the last", webRequest{path: path(id, output+100, 0), headers: withCookie}, http.StatusNotFound, nil, ""},
		{"a seq that is no number", webRequest{path: path(id, "x", 0), headers: withCookie}, http.StatusNotFound, nil, ""},
		{"a negative image", webRequest{path: path(id, user, -1), headers: withCookie}, http.StatusNotFound, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.method = "GET"
			resp, body := send(t, srv, tt.req)
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "img-src 'self';") {
				t.Errorf("nosniff %q, CSP %q", resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Content-Security-Policy"))
			}
			if tt.want != http.StatusOK {
				return
			}
			if got := resp.Header.Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type = %q, want %q", got, tt.wantType)
			}
			if !bytes.Equal([]byte(body), tt.wantData) {
				t.Errorf("served %d bytes, not the %d stored", len(body), len(tt.wantData))
			}
		})
	}
}
