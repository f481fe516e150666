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
		providers, err := doc.object("providers")
		if err != nil {
			return err
		}
		if _, ok := providers.values[provider]; !ok {
			return albedo.Errorf(albedo.EConflict, "unknown provider %q", provider)
		}
		p, err := providers.object(provider)
		if err != nil {
			return err
		}
		p.setString("model", model)
		doc.setString("active", provider)
		if err := providers.setObject(provider, p); err != nil {
			return err
		}
		return doc.setObject("providers", providers)
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
		providers, err := doc.object("providers")
		if err != nil {
			return err
		}
		entry, err := providers.object(p.Name)
		if err != nil {
			return err
		}
		entry.setString("baseUrl", p.BaseURL)
		entry.setString("apiKey", p.APIKey)
		entry.setString("model", p.Model)
		entry.setString("protocol", string(p.Protocol))
		if err := providers.setObject(p.Name, entry); err != nil {
			return err
		}
		return doc.setObject("providers", providers)
	})
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
	compact, err := doc.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encoding config file %s: %w", f.path, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return fmt.Errorf("encoding config file %s: %w", f.path, err)
	}
	out.WriteByte('\n')
	if err := ctx.Err(); err != nil {
		return err
	}
	return atomicfile.Write(f.path, out.Bytes(), 0o600)
}
