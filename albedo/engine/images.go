package engine

import (
	"context"

	"github.com/albedo-agent/albedo/albedo"
)

// ShownImage returns, with its data, image n of the item at seq: a user
// message's own image (n 0), or the n-th image a cell's output showed
// (the tool_image items that follow the output and name its call). A
// missing session, item or image is ENotFound.
func (s *Service) ShownImage(ctx context.Context, id string, seq int64, n int) (*albedo.Image, error) {
	if _, err := s.store.Session(ctx, id); err != nil {
		return nil, err
	}
	missing := albedo.Errorf(albedo.ENotFound, "session %s has no image %d at item %d", id, n, seq)
	if seq <= 0 || n < 0 || n >= albedo.MaxCellImages {
		return nil, missing
	}
	// The item and the images after it, their metadata only.
	items, err := s.store.ItemPage(ctx, id, albedo.ItemQuery{After: seq - 1, Limit: 1 + albedo.MaxCellImages, Display: true})
	if err != nil {
		return nil, err
	}
	if len(items) == 0 || items[0].Seq != seq {
		return nil, missing
	}
	var at int64
	switch first := items[0]; first.Kind {
	case albedo.KindUser:
		if n == 0 && first.Image != nil {
			at = seq
		}
	case albedo.KindToolOutput:
		for i, it := range items[1:] {
			if it.Kind != albedo.KindToolImage || it.CallID != first.CallID {
				break
			}
			if i == n {
				at = it.Seq
				break
			}
		}
	}
	if at == 0 {
		return nil, missing
	}
	found, err := s.store.ItemPage(ctx, id, albedo.ItemQuery{After: at - 1, Limit: 1, Images: true, Display: true})
	if err != nil {
		return nil, err
	}
	if len(found) == 0 || found[0].Seq != at || found[0].Image == nil || len(found[0].Image.Data) == 0 {
		return nil, missing
	}
	return found[0].Image, nil
}
