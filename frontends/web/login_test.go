package web

import (
	"strings"
	"testing"
	"time"
)

func TestCookiesAreGoodOnlyAsSigned(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	key, other := []byte(strings.Repeat("k", 32)), []byte(strings.Repeat("o", 32))
	good, err := signCookie(key, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, ".")
	tests := []struct {
		name, value string
		key         []byte
		at          time.Time
		want        bool
	}{
		{"as signed", good, key, now, true},
		{"at its expiry", good, key, now.Add(time.Hour), false},
		{"under another key", good, other, now, false},
		{"with a later expiry", strings.Join([]string{parts[0], "9999999999", parts[2], parts[3]}, "."), key, now, false},
		{"with another nonce", strings.Join([]string{parts[0], parts[1], strings.Repeat("0", 32), parts[3]}, "."), key, now, false},
		{"of another version", strings.Join([]string{"v0", parts[1], parts[2], mac(key, "v0."+parts[1]+"."+parts[2])}, "."), key, now, false},
		{"without signature", parts[0] + "." + parts[1] + "." + parts[2], key, now, false},
		{"empty", "", key, now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cookieValid(tt.key, tt.value, tt.at); got != tt.want {
				t.Errorf("cookieValid = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTicketsWaitingAreBounded(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var tk tickets
	first, err := tk.issue(now, now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for i := range maxTickets {
		last, _ = tk.issue(now, now.Add(time.Minute+time.Duration(i)))
	}
	if len(tk.waiting) != maxTickets {
		t.Fatalf("%d tickets wait, want at most %d", len(tk.waiting), maxTickets)
	}
	if tk.redeem(first, now) {
		t.Error("the ticket closest to its end was kept past the bound")
	}
	if !tk.redeem(last, now) {
		t.Error("the newest ticket was forgotten")
	}
}

func TestAKeyOutlivesTheDaemonUntilRevoked(t *testing.T) {
	dir := t.TempDir()
	key, err := ReadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ReadKey(dir)
	if err != nil || string(again) != string(key) {
		t.Fatalf("a second read gave another key (%v)", err)
	}
	l, err := NewLogins(LoginOptions{Key: key, NewKey: func() ([]byte, error) { return NewKey(dir) }})
	if err != nil {
		t.Fatal(err)
	}
	tk, _, _ := l.Ticket()
	cookie, _, ok, err := l.Redeem(tk)
	if !ok || err != nil {
		t.Fatalf("redeem: %v %v", ok, err)
	}
	next, _ := NewLogins(LoginOptions{Key: key})
	if !next.Valid(cookie) {
		t.Error("a daemon started on the same key refuses the cookie")
	}
	if err := l.Revoke(); err != nil {
		t.Fatal(err)
	}
	if l.Valid(cookie) {
		t.Error("a revoked cookie is still valid")
	}
	kept, _ := ReadKey(dir)
	if string(kept) == string(key) {
		t.Error("revoking did not keep a new key for the next daemon")
	}
}

func TestAssetServesOnlyThePagesFiles(t *testing.T) {
	tests := []struct {
		name, file, kind string
		ok               bool
	}{
		{"a script", "app.js", "text/javascript; charset=utf-8", true},
		{"the style", "style.css", "text/css; charset=utf-8", true},
		{"the page", "app.html", "text/html; charset=utf-8", true},
		{"a file beside the folder", "../doc.go", "", false},
		{"the folder named", "static/app.js", "", false},
		{"nothing", "", "", false},
		{"an absolute path", "/etc/passwd", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, kind, ok := Asset(tt.file)
			if ok != tt.ok || kind != tt.kind || ok && len(data) == 0 {
				t.Errorf("Asset(%q) = %d bytes, %q, %v; want %q, %v", tt.file, len(data), kind, ok, tt.kind, tt.ok)
			}
		})
	}
}
