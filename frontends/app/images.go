package app

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// ShownImage returns the data of image n of a session's item seq (a
// message's image, or one a cell showed) and its content type, read
// again from the data's own header: what the image is, not what was
// declared of it.
func (a *App) ShownImage(ctx context.Context, id string, seq int64, n int) (data []byte, contentType string, err error) {
	img, err := a.svc.ShownImage(ctx, id, seq, n)
	if err != nil {
		return nil, "", err
	}
	checked, err := albedo.ImageOf(img.Data)
	if err != nil {
		return nil, "", albedo.Errorf(albedo.EInternal, "image %d of item %d of session %s: %v", n, seq, id, albedo.ErrorMessage(err))
	}
	return checked.Data, checked.MimeType, nil
}
