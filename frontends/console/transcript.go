package console

import (
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// BlockKind says what a block of the transcript shows.
type BlockKind int

// Block kinds.
const (
	// BlockUser is a message of the user, or a system note albedo sent on
	// the user's behalf (Source says where it came from).
	BlockUser BlockKind = iota
	// BlockQueued is a message waiting for the session's next model request.
	BlockQueued
	// BlockAssistant is the model's text.
	BlockAssistant
	// BlockThinking is the model's reasoning summary.
	BlockThinking
	// BlockTool is one Python cell: its code, then its result.
	BlockTool
	// BlockError is a failure recorded in the transcript.
	BlockError
	// BlockTurn marks a turn that ended otherwise than finished.
	BlockTurn
	// BlockNotice is the console's own message, such as a command's result.
	BlockNotice
	// BlockRetry is the provider's retries of one request: Text is the
	// latest notice, whole; Live while the retries go on; Status, once
	// they ended, says how (answered, failed, stopped).
	BlockRetry
	// BlockCompaction is a summary that stands in for the start of the
	// conversation in the model's requests: Text is the summary, Figures
	// what it stands in for. Folded like thinking.
	BlockCompaction
)

// Block is one thing the transcript shows: a message, a cell, a note.
type Block struct {
	Kind BlockKind
	// Seq is the transcript item's id (a fork checkpoint); 0 while the
	// block is live or for blocks that stand for no item.
	Seq       int64
	Text      string
	Source    string
	Image     *wire.ImageMeta
	Timestamp int64
	// Live is true while the block streams in (text, thinking) or runs (a
	// cell without its result yet).
	Live bool
	// Cut is true when the turn ended while the block was still live.
	Cut bool
	// QueueID identifies a queued message in the daemon's queue.
	QueueID int64
	// Tool cells.
	CallID string
	Name   string
	Code   string
	// Args counts the characters of a tool call's arguments streamed so far.
	Args int
	// Printed is what the cell printed so far while it runs (its last
	// printedMax bytes).
	Printed string
	// Cell is the cell's result; nil while it runs.
	Cell  *wire.CellResult
	Trace string
	// Status is the cell's or the turn's status.
	Status string
	// Failed marks a notice that reports an error.
	Failed bool
	// Figures sums a compaction up: the items it stands in for and the
	// estimated tokens of a request before and after it.
	Figures string
	// Took is how long a turn ran, in milliseconds; 0 when unknown.
	Took int64
	// Retries counts the retries of a retry block.
	Retries int

	// rev counts changes; layouts are cached per rev.
	rev int
	// layout caches the block's rows for one width and one detail setting.
	layout layoutCache
	// lit caches the cell's code highlighted, for any width.
	lit highlightCache
}

// highlightCache keeps code's highlighted rows.
type highlightCache struct {
	code string
	rows []line
}

// changed records that the block must be laid out again.
func (b *Block) changed() { b.rev++ }

// Usage sums what the model requests of this view cost.
type Usage struct {
	// Context is how much of the model's context the session uses, in
	// tokens: as the daemon measured it, else the input tokens of the
	// latest request.
	Context int64
	// Window is the model's context window, 0 when unknown; Percent is
	// Context as a percentage of it.
	Window  int64
	Percent float64
	// Input and Output are the input and output tokens of every request
	// seen.
	Input  int64
	Output int64
	// Requests counts the requests seen.
	Requests int
}

// measure takes in how full the context is, as far as the daemon said:
// what it left out (nil) stays as it was.
func (u *Usage) measure(used, window *int64, percent *float64) {
	if used != nil {
		u.Context = *used
	}
	if window != nil {
		u.Window = *window
	}
	if percent != nil {
		u.Percent = *percent
	}
}

// Transcript turns a session's events into display blocks. Live deltas
// grow a block in place; the durable event that follows completes it.
// Its zero value is an empty transcript.
type Transcript struct {
	Blocks []*Block
	// Running says whether the session is running a turn.
	Running bool
	Usage   Usage
	// Workspace is the session's folder: cell traces show paths in it
	// relative to it.
	Workspace string
	// Retry is the provider adapter's notice of a retry under way, "" when
	// none is.
	Retry string
	// liveText, liveThinking and liveTool are the blocks deltas grow;
	// liveRetry the retries under way.
	liveText, liveThinking, liveTool, liveRetry *Block
	// turnFrom is when (Unix ms) the turn under way took its first
	// message, 0 when unknown: a turn's end tells how long it took.
	turnFrom int64
	// calls maps call ids to their cells.
	calls map[string]*Block
}

// Reset replaces the transcript with a snapshot of durable events. Running
// and Usage are kept.
func (t *Transcript) Reset(snapshot []wire.Event) {
	t.Blocks = make([]*Block, 0, len(snapshot))
	t.liveText, t.liveThinking, t.liveTool, t.liveRetry, t.turnFrom = nil, nil, nil, nil, 0
	t.calls = make(map[string]*Block)
	for _, ev := range snapshot {
		t.Apply(ev)
	}
}

// DropLive removes what was streaming when the stream dropped: the text,
// reasoning and call arguments of a request whose end the console will not
// see. Its durable events replace them if the request went on; a restarted
// daemon asks again, and the new answer comes after its restart note.
func (t *Transcript) DropLive() {
	for _, live := range []**Block{&t.liveText, &t.liveThinking, &t.liveTool} {
		if b := *live; b != nil {
			t.Blocks = slices.DeleteFunc(t.Blocks, func(x *Block) bool { return x == b })
			*live = nil
		}
	}
}

// Notice adds the console's own message at the end.
func (t *Transcript) Notice(text string, failed bool) {
	t.add(&Block{Kind: BlockNotice, Text: text, Failed: failed})
}

// Apply adds an event to the transcript.
func (t *Transcript) Apply(ev wire.Event) {
	if ev.Type == wire.EventDelta && ev.Kind == wire.DeltaRetry {
		t.retry(ev.Text)
		return
	}
	if ev.Type != wire.EventStatus || ev.Running != nil && !*ev.Running {
		t.retried(ev) // the request went on, or the turn ended
	}
	switch ev.Type {
	case wire.EventUser:
		t.user(ev)
	case wire.EventQueued:
		t.Blocks = append(t.Blocks, &Block{Kind: BlockQueued, Text: ev.Text, Image: ev.Image, Timestamp: ev.Timestamp, QueueID: ev.QueueID})
	case wire.EventUnqueued:
		t.unqueue(ev.QueueID)
	case wire.EventMessage:
		t.complete(&t.liveText, BlockAssistant, ev)
		t.cut(ev)
	case wire.EventThinking:
		t.complete(&t.liveThinking, BlockThinking, ev)
		t.cut(ev)
	case wire.EventToolCall:
		t.toolCall(ev)
	case wire.EventTool:
		t.toolResult(ev)
	case wire.EventNote:
		t.add(&Block{Kind: BlockNotice, Seq: ev.Seq, Text: ev.Text})
	case wire.EventCompaction:
		t.add(&Block{Kind: BlockCompaction, Seq: ev.Seq, Text: ev.Summary, Timestamp: ev.Timestamp, Figures: compactionFigures(ev)})
	case wire.EventOutput:
		t.printed(ev)
	case wire.EventError:
		t.add(&Block{Kind: BlockError, Seq: ev.Seq, Text: ev.Text, Timestamp: ev.Timestamp})
	case wire.EventTurn:
		t.endTurn(ev)
	case wire.EventDelta:
		t.delta(ev)
	case wire.EventStatus:
		t.status(ev)
	}
}

// retry shows a retry of the provider under way, whole.
func (t *Transcript) retry(text string) {
	t.Retry = text
	b := t.grow(&t.liveRetry, BlockRetry)
	b.Text = text
	b.Retries++
}

// retried ends the retries under way, if any, with how they ended: the
// block stays as a trace.
func (t *Transcript) retried(ev wire.Event) {
	t.Retry = ""
	b := t.liveRetry
	if b == nil {
		return
	}
	t.liveRetry = nil
	b.Live, b.Status = false, "answered"
	switch {
	case ev.Type == wire.EventError, ev.Type == wire.EventTurn && ev.Status == wire.TurnFailed:
		b.Status = "failed"
	case ev.Type == wire.EventTurn && ev.Status == wire.TurnInterrupted, ev.Type == wire.EventStatus:
		b.Status = "stopped"
	}
	b.changed()
}

// cut shows, under a message or thinking cut short, why it was.
func (t *Transcript) cut(ev wire.Event) {
	if ev.Notice != "" {
		t.add(&Block{Kind: BlockNotice, Seq: ev.Seq, Text: ev.Notice})
	}
}

// add appends a block, keeping queued messages last: they join the
// conversation only at the next model request.
func (t *Transcript) add(b *Block) {
	t.Blocks = slices.Insert(t.Blocks, t.queuedFrom(), b)
}

// queuedFrom returns the index of the first queued block: queued messages
// are always the last blocks.
func (t *Transcript) queuedFrom() int {
	i := len(t.Blocks)
	for i > 0 && t.Blocks[i-1].Kind == BlockQueued {
		i--
	}
	return i
}

// user shows a delivered user message: a queued one it stood for becomes
// the message.
func (t *Transcript) user(ev wire.Event) {
	if t.turnFrom == 0 {
		t.turnFrom = ev.Timestamp
	}
	for _, b := range t.Blocks[t.queuedFrom():] {
		if b.Text == ev.Text && ev.Source == "" {
			b.Kind, b.Seq, b.Source, b.Image, b.Timestamp = BlockUser, ev.Seq, ev.Source, ev.Image, ev.Timestamp
			b.changed()
			t.moveBeforeQueued(b)
			return
		}
	}
	t.add(&Block{Kind: BlockUser, Seq: ev.Seq, Text: ev.Text, Source: ev.Source, Image: ev.Image, Timestamp: ev.Timestamp})
}

// moveBeforeQueued moves a block that stopped being queued in front of the
// blocks that still are.
func (t *Transcript) moveBeforeQueued(b *Block) {
	t.Blocks = slices.DeleteFunc(t.Blocks, func(x *Block) bool { return x == b })
	t.add(b)
}

// complete finishes the live block of a kind with its durable event, or
// adds the event as a new block when nothing streamed.
func (t *Transcript) complete(live **Block, kind BlockKind, ev wire.Event) {
	b := *live
	*live = nil
	if b == nil {
		t.add(&Block{Kind: kind, Seq: ev.Seq, Text: ev.Text, Timestamp: ev.Timestamp})
		return
	}
	b.Seq, b.Text, b.Timestamp, b.Live = ev.Seq, ev.Text, ev.Timestamp, false
	b.changed()
}

// delta grows the live block a fragment belongs to.
func (t *Transcript) delta(ev wire.Event) {
	switch ev.Kind {
	case wire.DeltaText:
		t.grow(&t.liveText, BlockAssistant).Text += ev.Text
	case wire.DeltaReasoning:
		t.grow(&t.liveThinking, BlockThinking).Text += ev.Text
	case wire.DeltaToolCall:
		b := t.grow(&t.liveTool, BlockTool)
		b.Args += len(ev.Text)
		if b.Name == "" {
			b.Name = "python"
		}
	}
}

// grow returns the live block of a kind, making it when there is none.
func (t *Transcript) grow(live **Block, kind BlockKind) *Block {
	if *live == nil {
		*live = &Block{Kind: kind, Live: true}
		t.add(*live)
	}
	(*live).changed()
	return *live
}

// toolCall shows a cell about to run.
func (t *Transcript) toolCall(ev wire.Event) {
	b := t.liveTool
	t.liveTool = nil
	if b == nil {
		b = &Block{Kind: BlockTool}
		t.add(b)
	}
	b.Seq, b.CallID, b.Name, b.Code, b.Timestamp, b.Live = ev.Seq, ev.CallID, ev.Name, ev.Code, ev.Timestamp, true
	b.changed()
	if t.calls == nil {
		t.calls = make(map[string]*Block)
	}
	t.calls[ev.CallID] = b
}

// printedMax bounds what a running cell's block keeps of its output.
const printedMax = 64 << 10

// printed grows the output of the running cell an output event names.
func (t *Transcript) printed(ev wire.Event) {
	for _, b := range t.calls {
		if b.Seq == ev.Call && b.Cell == nil {
			b.Printed += ev.Text
			if len(b.Printed) > printedMax {
				b.Printed = strings.ToValidUTF8(b.Printed[len(b.Printed)-printedMax:], "")
			}
			b.changed()
			return
		}
	}
}

// toolResult completes a cell with its result.
func (t *Transcript) toolResult(ev wire.Event) {
	b := t.calls[ev.CallID]
	if b == nil {
		b = &Block{Kind: BlockTool, Seq: ev.Seq, CallID: ev.CallID, Name: ev.Name, Code: ev.Code}
		t.add(b)
	}
	cell, err := ev.Cell()
	if err != nil {
		cell = wire.CellResult{Status: ev.Status, Error: "the result could not be read: " + err.Error()}
	}
	if cell.Status == "" {
		cell.Status = ev.Status
	}
	if b.Code == "" {
		b.Code = ev.Code
	}
	b.Cell, b.Status, b.Trace, b.Live, b.Printed = &cell, cell.Status, ev.Trace.Summary(t.Workspace), false, ""
	b.changed()
}

// endTurn closes the live blocks; a turn that did not finish leaves a
// marker.
func (t *Transcript) endTurn(ev wire.Event) {
	for _, live := range []**Block{&t.liveText, &t.liveThinking, &t.liveTool} {
		if b := *live; b != nil {
			b.Live, b.Cut = false, true
			b.changed()
			*live = nil
		}
	}
	var took int64
	if t.turnFrom > 0 && ev.Timestamp > t.turnFrom {
		took = ev.Timestamp - t.turnFrom
	}
	t.turnFrom = 0
	if ev.Status != wire.TurnFinished || took > 0 {
		t.add(&Block{Kind: BlockTurn, Seq: ev.Seq, Status: ev.Status, Timestamp: ev.Timestamp, Took: took})
	}
}

// status records whether the session runs and what its requests cost.
func (t *Transcript) status(ev wire.Event) {
	if ev.Running != nil {
		t.Running = *ev.Running
	}
	if u := ev.Usage; u != nil {
		t.Usage.Context = wire.Tokens(u.InputTokens)
		t.Usage.Input += wire.Tokens(u.InputTokens)
		t.Usage.Output += wire.Tokens(u.OutputTokens)
		t.Usage.Requests++
	}
	t.Usage.measure(ev.Used, ev.Window, ev.Percent)
}

// LastUserTime returns the timestamp (Unix ms) of the last message the
// user sent, 0 when none has one.
func (t *Transcript) LastUserTime() int64 {
	for i := len(t.Blocks) - 1; i >= 0; i-- {
		if b := t.Blocks[i]; b.Kind == BlockUser && b.Timestamp > 0 {
			return b.Timestamp
		}
	}
	return 0
}

// RunningCellTime returns when (Unix ms) the cell that runs now was
// called, 0 when no cell runs or its time is unknown.
func (t *Transcript) RunningCellTime() int64 {
	for i := len(t.Blocks) - 1; i >= 0; i-- {
		if b := t.Blocks[i]; b.Kind == BlockTool && b.Live && b.Code != "" && b.Cell == nil {
			return b.Timestamp
		}
	}
	return 0
}

// unqueue removes the queued message id.
func (t *Transcript) unqueue(id int64) {
	t.Blocks = slices.DeleteFunc(t.Blocks, func(b *Block) bool { return b.Kind == BlockQueued && b.QueueID == id })
}

// LastQueued returns the last message still waiting, or nil.
func (t *Transcript) LastQueued() *Block {
	for i := len(t.Blocks) - 1; i >= 0; i-- {
		if b := t.Blocks[i]; b.Kind == BlockQueued {
			return b
		}
	}
	return nil
}

// Queued returns the texts of the messages still waiting, in order.
func (t *Transcript) Queued() []string {
	var out []string
	for _, b := range t.Blocks {
		if b.Kind == BlockQueued {
			out = append(out, b.Text)
		}
	}
	return out
}

// compactionFigures sums up a compaction event: "12 items · ~3.4k → ~800
// tokens".
func compactionFigures(ev wire.Event) string {
	return plural(ev.Items, "item") + " · ~" + tokens(ev.TokensBefore) + " → ~" + tokens(ev.TokensAfter) + " tokens"
}
