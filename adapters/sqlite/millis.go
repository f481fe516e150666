package sqlite

import "time"

// millis returns t as Unix milliseconds, or now's when t is zero.
func millis(t, now time.Time) int64 {
	if t.IsZero() {
		t = now
	}
	return t.UnixMilli()
}

// fromMillis returns the time of Unix milliseconds ms.
func fromMillis(ms int64) time.Time {
	return time.UnixMilli(ms)
}
