package home

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Extensions are the settings of albedo's extensions in extensions.json,
// such as {"models": {"refreshHours": 0}}, by extension name. albedo keeps
// them for the extensions that read them; none of them makes albedo reach
// the network.
type Extensions map[string]json.RawMessage

// ReadExtensions reads extensions.json from dir. A missing file is no
// settings; a file that is not a JSON object is an error that names it.
func ReadExtensions(dir string) (Extensions, error) {
	path := filepath.Join(dir, ExtensionsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Extensions{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ext := Extensions{}
	if err := json.Unmarshal(data, &ext); err != nil {
		return nil, fmt.Errorf("read %s: not a JSON object: %w", path, err)
	}
	return ext, nil
}
