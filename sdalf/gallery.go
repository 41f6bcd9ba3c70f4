package sdalf

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/appearance"
)

// Gallery is a gallery of signatures of identities (classes), for the
// nearest gallery image of each class to a probe (NearestTo).
type Gallery struct {
	sigs    []*Signature
	byClass [][]int // the gallery's positions of each class's signatures
}

// NewGallery returns the gallery of the signatures sigs, signature a of
// class class[a] in [0, classes). It returns an error when the lengths
// differ, a signature is nil or a class is out of range.
func NewGallery(sigs []*Signature, class []int, classes int) (*Gallery, error) {
	if len(sigs) != len(class) {
		return nil, fmt.Errorf("gallery of %d signatures with %d classes", len(sigs), len(class))
	}
	g := &Gallery{sigs: sigs, byClass: make([][]int, max(0, classes))}
	for a, c := range class {
		switch {
		case sigs[a] == nil:
			return nil, fmt.Errorf("gallery signature %d is nil", a)
		case c < 0 || c >= classes:
			return nil, fmt.Errorf("gallery signature %d of class %d, want a class in [0, %d)", a, c, classes)
		}
		g.byClass[c] = append(g.byClass[c], a)
	}
	return g, nil
}

// NearestWork holds NearestTo's buffers, reused from call to call; its
// zero value is ready to use, and it is not safe for concurrent use.
type NearestWork struct {
	hist  []float64 // β_WH·d_WH of the probe and each gallery signature
	order []int     // one class's positions by increasing hist
}

// NearestTo sets best[c], for every class c, to the smallest Distance of
// probe from the gallery signatures of class c (+Inf for a class without
// one): the multiple-shot distance of a probe image from each identity
// (MultiShot with one probe image), to the last bit. Each class's
// signatures are measured in increasing order of their histogram term
// β_WH·d_WH, a lower bound of the distance (its other term is
// non-negative), and each with DistanceBelow's bound at the class's
// nearest so far: the nearest tends to come first, later ones stop early,
// and those whose histogram term alone reaches the nearest so far are not
// measured. The minimum does not depend on the order it is taken in. It
// returns an error when best's length is not the number of classes, or
// as Distance.
func (g *Gallery) NearestTo(best []float64, probe *Signature, w Weights, ws *NearestWork) error {
	if err := w.Validate(); err != nil {
		return err
	}
	if len(best) != len(g.byClass) {
		return fmt.Errorf("nearest distances of %d classes into %d values", len(g.byClass), len(best))
	}
	if probe == nil {
		return fmt.Errorf("distance of a nil signature")
	}
	ws.hist = appearance.Grow(ws.hist, len(g.sigs))
	for a, b := range g.sigs {
		h, err := histTerm(probe, b, w)
		if err != nil {
			return err
		}
		ws.hist[a] = h
	}
	for c, items := range g.byClass {
		ws.order = append(ws.order[:0], items...)
		slices.SortFunc(ws.order, func(x, y int) int { return cmp.Compare(ws.hist[x], ws.hist[y]) })
		nearest := math.Inf(1)
		for _, a := range ws.order {
			h := ws.hist[a]
			if h >= nearest {
				break // the rest's histogram terms are no smaller
			}
			if v := blobsBelow(probe, g.sigs[a], w, h, nearest); v < nearest {
				nearest = v
			}
		}
		best[c] = nearest
	}
	return nil
}
