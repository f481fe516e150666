package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cookieVersion starts every cookie value, so that a later format is
// told apart.
const cookieVersion = "v1"

// signCookie returns a cookie value valid until expires under key: the
// expiry, a random nonce and an HMAC-SHA256 of both.
func signCookie(key []byte, expires time.Time) (string, error) {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", fmt.Errorf("make a login cookie: %w", err)
	}
	payload := cookieVersion + "." + strconv.FormatInt(expires.Unix(), 10) + "." + hex.EncodeToString(nonce[:])
	return payload + "." + mac(key, payload), nil
}

// cookieValid reports whether value was signed with key and is not
// expired at now.
func cookieValid(key []byte, value string, now time.Time) bool {
	cut := strings.LastIndexByte(value, '.')
	if cut < 0 {
		return false
	}
	payload, sum := value[:cut], value[cut+1:]
	if !hmac.Equal([]byte(sum), []byte(mac(key, payload))) {
		return false
	}
	parts := strings.Split(payload, ".")
	if len(parts) != 3 || parts[0] != cookieVersion {
		return false
	}
	end, err := strconv.ParseInt(parts[1], 10, 64)
	return err == nil && now.Unix() < end
}

// mac is the signature of payload under key.
func mac(key []byte, payload string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
