package web

import (
	"embed"
	"io/fs"
	"path"
)

//go:embed static
var static embed.FS

// Asset returns the embedded file name of the page (such as "app.js")
// and its content type; ok is false when there is none.
func Asset(name string) (data []byte, contentType string, ok bool) {
	if name == "" || !fs.ValidPath(name) {
		return nil, "", false
	}
	data, err := static.ReadFile(path.Join("static", name))
	if err != nil {
		return nil, "", false
	}
	contentType, ok = contentTypes[path.Ext(name)]
	if !ok {
		contentType = "application/octet-stream"
	}
	return data, contentType, true
}

// contentTypes are the types of the page's files, fixed here rather than
// read from the machine's MIME tables: a module script must be served as
// JavaScript, and nosniff keeps browsers from guessing.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}
