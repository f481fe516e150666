package pykernel

import (
	"encoding/base64"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// takeImage keeps an image the running cell showed, checked as an upload
// is: a kernel only sends images it checked, so a refusal is noted, not
// raised.
func (p *process) takeImage(ev event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.cell
	if st == nil || st.id != ev.ID {
		return // a cell given up on
	}
	data, err := base64.StdEncoding.DecodeString(ev.Data)
	var img *albedo.Image
	if err == nil {
		img, err = albedo.ImageOf(data)
	}
	switch {
	case err != nil:
		st.refused = append(st.refused, fmt.Sprintf("An image the cell showed was not attached: %s.", albedo.ErrorMessage(err)))
	case ev.Mime != "" && ev.Mime != img.MimeType:
		st.refused = append(st.refused, fmt.Sprintf("An image the cell showed was not attached: it is %s, not %s.", img.MimeType, ev.Mime))
	case len(st.images) >= albedo.MaxCellImages:
		st.refused = append(st.refused, fmt.Sprintf("An image the cell showed was not attached: a cell shows at most %d.", albedo.MaxCellImages))
	default:
		st.images = append(st.images, img)
	}
}

// withImages attaches the images the cell showed to its result. A cell
// that did not end ok attaches none: its error is what the model needs.
func (p *process) withImages(st *cellState, res albedo.CellResult) albedo.CellResult {
	p.mu.Lock()
	images, refused := st.images, st.refused
	p.mu.Unlock()
	res.Notes = append(res.Notes, refused...)
	if res.Status != albedo.CellOK || len(images) == 0 {
		return res
	}
	res.Shown = images
	res.Images = make([]albedo.ImageMeta, len(images))
	for i, img := range images {
		res.Images[i] = *img.Meta()
	}
	return res
}
