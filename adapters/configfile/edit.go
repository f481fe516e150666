package configfile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// SetActiveModel makes provider the active one and model its default
// model. A provider missing from the file is an EConflict error.
func (f *File) SetActiveModel(ctx context.Context, provider, model string) error {
	return f.update(ctx, func(doc *object) error {
		doc.setString("active", provider)
		return doc.editProvider(provider, true, func(entry *object) { entry.setString("model", model) })
	})
}

// SaveProvider adds p or replaces its four fields, keeping any other
// members of its entry, and makes it active when activate is true. A
// provider without a name, with an unknown protocol, or with a base URL that
// is not an absolute http(s) URL is an EInvalid error.
func (f *File) SaveProvider(ctx context.Context, p albedo.ProviderConfig, activate bool) error {
	if err := validate(p); err != nil {
		return err
	}
	return f.update(ctx, func(doc *object) error {
		if activate {
			doc.setString("active", p.Name)
		}
		return doc.editProvider(p.Name, false, func(entry *object) {
			entry.setString("baseUrl", p.BaseURL)
			entry.setString("apiKey", p.APIKey)
			entry.setString("model", p.Model)
			entry.setString("protocol", string(p.Protocol))
		})
	})
}

// editProvider changes the entry of provider name in the document's
// "providers", keeping the entry's other members; with known, a provider
// missing from the file is an EConflict error.
func (doc *object) editProvider(name string, known bool, edit func(entry *object)) error {
	providers, err := doc.object("providers")
	if err != nil {
		return err
	}
	if _, ok := providers.values[name]; known && !ok {
		return albedo.Errorf(albedo.EConflict, "unknown provider %q", name)
	}
	entry, err := providers.object(name)
	if err != nil {
		return err
	}
	edit(entry)
	if err := providers.setObject(name, entry); err != nil {
		return err
	}
	return doc.setObject("providers", providers)
}

// update applies change to the file's document and writes the result
// atomically. The file must be JSON; it need not be valid otherwise, not
// even in its members' types, so that a broken provider can be replaced.
func (f *File) update(ctx context.Context, change func(doc *object) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, _, err := f.read(ctx)
	if err != nil && data == nil {
		return err
	}
	// A member of the wrong type does not stop the update, which may be
	// what replaces it.
	doc, err := parseObject(data)
	if err != nil {
		return albedo.Errorf(albedo.EConfig, "config file %s: %v", f.path, err)
	}
	if err := change(doc); err != nil {
		return err
	}
	// Indented, as written: <, > and & stay as they are.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding config file %s: %w", f.path, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return atomicfile.Write(f.path, out.Bytes(), 0o600)
}
