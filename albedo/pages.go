package albedo

// HistoryQuery chooses a page of history: the items with After < Seq <
// Before (zero bounds are open), at most Limit (at most MaxHistoryPage);
// with Before and no After, the newest Limit items below Before.
type HistoryQuery struct {
	After, Before int64
	Limit         int
}

// HistoryPage is one page of a session's history.
type HistoryPage struct {
	// Items are in ascending order, images without their data.
	Items []Item
	// Next is the Seq to pass as After for the following page, 0 when no
	// item follows within the query's Before.
	Next int64
	// Before is the Seq of the oldest item returned, to pass as Before to
	// page backwards; 0 when the page is empty.
	Before int64
}
