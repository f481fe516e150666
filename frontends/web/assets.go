package web

import (
	"embed"
	"io/fs"
	"mime"
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
	contentType = mime.TypeByExtension(path.Ext(name))
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	return data, contentType, true
}
