package openai

import (
	"encoding/json"
	"strings"
)

// describeItem says in a few words what an output item of a type albedo
// does not act on did: for a web search its query, the page it opened or
// what it looked for; for any other type the type and its status.
func describeItem(typ string, raw json.RawMessage) string {
	var o struct {
		Status string `json:"status"`
		Action struct {
			Type    string `json:"type"`
			Query   string `json:"query"`
			URL     string `json:"url"`
			Pattern string `json:"pattern"`
		} `json:"action"`
	}
	_ = json.Unmarshal(raw, &o)
	if typ == "web_search_call" {
		switch a := o.Action; a.Type {
		case "search":
			if a.Query != "" {
				return "searched the web for “" + a.Query + "”"
			}
			return "searched the web"
		case "open_page":
			return "opened " + a.URL
		case "find_in_page":
			return "looked for “" + a.Pattern + "” in " + a.URL
		}
	}
	name := strings.ReplaceAll(typ, "_", " ")
	if o.Status != "" {
		return name + " (" + o.Status + ")"
	}
	return name
}
