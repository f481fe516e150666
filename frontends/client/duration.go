package client

import "fmt"

// FormatDuration writes milliseconds as a person reads them: 840ms, 3.2s,
// 2m05s, 1h04m. Every frontend shows a cell's or a turn's time this way.
func FormatDuration(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", max(ms, 0))
	case ms < 60_000:
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	case ms < 3_600_000:
		return fmt.Sprintf("%dm%02ds", ms/60_000, ms/1000%60)
	default:
		return fmt.Sprintf("%dh%02dm", ms/3_600_000, ms/60_000%60)
	}
}
