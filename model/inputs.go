package model

import (
	"fmt"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/store"
)

// FittedOn reports whether the images of lists are those the model was
// fitted on: the same relative paths and labels, in the same order
// (store.Meta.ItemsSHA256 of the training descriptors' listing). Its
// answers on them measure nothing about new images, and a model of random
// blocks redraws its training blocks, so covpipe predict warns. A model
// fitted on descriptors without that record answers false.
func (m *Model) FittedOn(lists []*datasets.List) bool {
	e := m.rec.Extraction
	if e == nil || e.ItemsSHA256 == "" {
		return false
	}
	_, sum := store.Inputs(lists)
	return sum == e.ItemsSHA256
}

// FittedOnOutput is FittedOn for descriptors: whether out was described
// from the images the model was fitted on.
func (m *Model) FittedOnOutput(out *store.Output) bool {
	e := m.rec.Extraction
	return e != nil && e.ItemsSHA256 != "" && out != nil && out.Meta.ItemsSHA256 == e.ItemsSHA256
}

// checkRegions checks, for a model of several regions per image whose
// training images all had the same regions (partsRecord.Uniform), that
// the regions of the image path are those: other cells (an image of
// another size, without the resize the training images had) are not the
// cells the model compares.
func (m *Model) checkRegions(regions []covariance.Region, path string) error {
	p := m.rec.Parts
	if p == nil || !p.Uniform {
		return nil
	}
	for k, r := range regions {
		if k < len(p.Regions) && r.String() != p.Regions[k] {
			return fmt.Errorf("%s fuses the regions of its training images, whose region %d is %s, but %s's is %s: describe the images as the training images were (their size, --resize)", m.name(), k, p.Regions[k], path, r)
		}
	}
	return nil
}
