package console

import (
	"fmt"
	"strconv"
)

// itoa formats a whole number.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// tokens formats a token count briefly: 950, 12.3k, 4.1M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return itoa(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}
