package model

import (
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/store"
)

// partsRecord is how a model of several regions per image fuses them.
type partsRecord struct {
	// Rules are the candidate rules, Rule the one cross-validation chose
	// and Weights each region's weight under it (all 1 but for
	// weighted).
	Rules   []string  `json:"rules"`
	Rule    string    `json:"rule"`
	Weights []float64 `json:"weights"`
	// Regions are the regions of the first training image, "WxH+X+Y",
	// in the order of each image's descriptors.
	Regions []string `json:"regions"`
	// Uniform says that every training image had those regions (images
	// of one size), so that Predict refuses an image whose regions
	// differ: its cells would not be the cells the model compares.
	Uniform bool `json:"uniform,omitempty"`
}

// Parts is how a model of several regions per image answers: it codes
// each region against the same region of the training images and fuses
// the class costs (classify.Fuse) by Rule with Weights.
type Parts struct {
	Rule    string
	Weights []float64
	// Regions are the regions of the first training image, "WxH+X+Y".
	Regions []string
	// Chosen are the parameters cross-validation chose for each region.
	Chosen []map[string]float64
}

// Parts returns how a model of several regions per image fuses them,
// nil for a model of one descriptor per image.
func (m *Model) Parts() *Parts {
	if m == nil || m.rec.Parts == nil {
		return nil
	}
	p := m.rec.Parts
	out := &Parts{Rule: p.Rule, Weights: slices.Clone(p.Weights), Regions: slices.Clone(p.Regions)}
	if _, fits, ok := classify.FusionOf(m.fitted); ok {
		for _, f := range fits {
			out.Chosen = append(out.Chosen, f.Chosen())
		}
	}
	return out
}

// regions returns the number of regions per item of a model of several
// regions per image, 0 for a model of one descriptor per item.
func (m *Model) regions() int {
	if m.rec.Parts == nil {
		return 0
	}
	return len(m.rec.Parts.Regions)
}

// imagesOf returns the number of images of rows and their number of
// regions: each image's rows are consecutive, of one input and path
// (describe's order), and every image must have the same number of them,
// at least two.
func imagesOf(rows []store.Row) (images, regions int, err error) {
	first := func(i int) bool { return i == 0 || rows[i].Input != rows[i-1].Input || rows[i].Path != rows[i-1].Path }
	var starts []int
	for i := range rows {
		if first(i) {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return 0, 0, fmt.Errorf("model: no descriptors")
	}
	regions = len(rows) - starts[len(starts)-1]
	for k, s := range starts {
		end := len(rows)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		if end-s != regions {
			return 0, 0, fmt.Errorf("model: %s has %d regions, %s %d: fusing regions needs the same number for every image (a fixed --resize, or a layout of a fixed count such as whole+grid:3x3:16)", rows[s].Path, end-s, rows[starts[len(starts)-1]].Path, regions)
		}
		for i := s; i < end; i++ {
			if rows[i].Label != rows[s].Label {
				return 0, 0, fmt.Errorf("model: the regions of %s have labels %q and %q", rows[s].Path, rows[s].Label, rows[i].Label)
			}
		}
	}
	if regions < 2 {
		return 0, 0, fmt.Errorf("model: fusion needs several regions per image, the descriptors have one: describe with a layout of several (--regions whole+grid:3x3:16)")
	}
	return len(starts), regions, nil
}
