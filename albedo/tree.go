package albedo

// TreeNode is one checkpoint of a transcript: an item a fork can start from.
type TreeNode struct {
	ID      int64
	Type    string
	Preview string
}

// Tree node types.
const (
	NodeUser      = "user"
	NodeAssistant = "assistant"
	NodeTool      = "tool"
)

// previewRunes bounds a tree preview.
const previewRunes = 120

// NodeOf returns the tree node of a conversational item, and false for
// items that are not checkpoints (errors, turn markers).
func NodeOf(it Item) (TreeNode, bool) {
	n := TreeNode{ID: it.Seq}
	switch it.Kind {
	case KindUser:
		n.Type, n.Preview = NodeUser, Preview(it.Text, previewRunes)
	case KindReasoning:
		n.Type, n.Preview = NodeAssistant, Preview("[reasoning] "+it.Text, previewRunes)
	case KindAssistant:
		n.Type, n.Preview = NodeAssistant, Preview(it.Text, previewRunes)
	case KindToolCall:
		n.Type, n.Preview = NodeAssistant, "call "+it.ToolName
	case KindToolOutput:
		n.Type, n.Preview = NodeTool, Preview(outputSummary(it), previewRunes)
	default:
		return n, false
	}
	return n, true
}

// outputSummary describes a tool output in a few words: its status and the
// first thing it produced, or its text when it has no structured result.
func outputSummary(it Item) string {
	r := it.Result
	if r == nil {
		return it.Text
	}
	for _, s := range []string{r.Output, r.Value, r.Error} {
		if s != "" {
			return string(r.Status) + ": " + s
		}
	}
	return string(r.Status)
}
