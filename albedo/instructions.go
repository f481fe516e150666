package albedo

import "encoding/json"

// DefaultInstructions tell the model how to work inside albedo. They
// describe python, which every tool set starts with, and leave any other
// tool to its declaration, so that they hold whatever tools a program
// registers (Options.Tools).
const DefaultInstructions = `You are a coding agent working in the user's workspace folder.
Among your tools is python: a persistent Python REPL whose working directory is the workspace.
Use any other tool you are given as its description says.
Globals persist between cells. Top-level await works. Print what you want to see; the value of
a final expression is shown too. File reads and changes are traced for the user.
If something in your environment gets in your way (a broken harness, a confusing workflow, a bug),
file it with await vent(topic, message, suggestion=..., title=...) where topic is one of
harness, workflow, bug, user, other. await vents() lists the ledger; when you have fixed one,
await resolve_vent(id, note) with a note that says what fixed it.
When you are done, answer the user in plain text.`

// PythonTool is albedo's own tool, the first of every tool set offered to
// the model.
func PythonTool() Tool {
	return Tool{
		Name:        "python",
		Description: "Run a cell in the session's persistent Python REPL (working directory: the workspace; top-level await works). Returns JSON with status, output, value and error.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"code":{"type":"string","description":"Python source of the cell"},` +
			`"timeout_ms":{"type":"integer","description":"Interrupt the cell after this many milliseconds"}},` +
			`"required":["code"],"additionalProperties":false}`),
	}
}
