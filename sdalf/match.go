package sdalf

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/appearance"
)

// Weights are the weights of SDALF's distance between two signatures
// (Farenzena et al., CVPR 2010, Sec. 4):
// d(A, B) = β_WH·d_WH(A, B) + β_MSCR·d_MSCR(A, B), and the weight γ of
// position against colour in the blob distance (MSCRDistance).
type Weights struct {
	WHSV, MSCR float64
	Gamma      float64
}

// DefaultWeights returns β_WH = 0.4, β_MSCR = 0.6 and γ = 0.4, the
// paper's weights without the recurrent high-structured patches (RHSP),
// which this package does not build, as recalled when it was written:
// the paper's text was not at hand to check them, so they are options.
func DefaultWeights() Weights { return Weights{WHSV: 0.4, MSCR: 0.6, Gamma: 0.4} }

// Validate returns an error unless the β are finite, non-negative and
// not both 0, and γ lies in [0, 1].
func (w Weights) Validate() error {
	ok := func(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
	switch {
	case !ok(w.WHSV) || !ok(w.MSCR) || w.WHSV+w.MSCR == 0:
		return fmt.Errorf("sdalf weights %v (wHSV) and %v (MSCR), want finite values >= 0, not both 0", w.WHSV, w.MSCR)
	case !(w.Gamma >= 0 && w.Gamma <= 1):
		return fmt.Errorf("sdalf blob weight gamma = %v, want a value in [0, 1]", w.Gamma)
	}
	return nil
}

// labScale is the CIELAB distance that counts 1 in the blob distance:
// the range of lightness.
const labScale = 100

// BlobDistance returns the distance of blob a of an image of ha rows and
// blob b of an image of hb rows:
// γ·|y_a/h_a − y_b/h_b| + (1 − γ)·‖c_a − c_b‖/100, the difference of
// their heights as fractions of the image plus the CIELAB distance of
// their colours over the range of lightness (Farenzena et al., CVPR 2010,
// Sec. 4). Only the vertical position counts: a pedestrian seen from the
// other side mirrors horizontally, and the paper's blob position is the
// height.
func BlobDistance(a, b Blob, ha, hb int, gamma float64) float64 {
	dy := math.Abs(a.Y/float64(ha) - b.Y/float64(hb))
	dl, da, db := a.L-b.L, a.A-b.A, a.B-b.B
	return gamma*dy + (1-gamma)*math.Sqrt(dl*dl+da*da+db*db)/labScale
}

// MSCRDistance returns d_MSCR(A, B) = (1/|A|) Σ_{a∈A} min_{b∈B} d(a, b),
// the mean over A's blobs of the BlobDistance to the nearest of B's
// (Farenzena et al., CVPR 2010, Sec. 4), for blobs of images of ha and hb
// rows; 1 when either has no blob, as a signature without blobs says
// nothing alike. It is not symmetric: A is the probe.
func MSCRDistance(a, b []Blob, ha, hb int, gamma float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	var sum float64
	for _, p := range a {
		best := math.Inf(1)
		for _, q := range b {
			best = min(best, BlobDistance(p, q, ha, hb, gamma))
		}
		sum += best
	}
	return sum / float64(len(a))
}

// Distance returns SDALF's single-shot distance of the probe a from the
// gallery image b (Farenzena et al., CVPR 2010, Sec. 4):
// w.WHSV·d_B(WHSV_a, WHSV_b) + w.MSCR·d_MSCR(a, b), with d_B the
// Bhattacharyya distance (appearance.Bhattacharyya) and d_MSCR the blob
// distance (MSCRDistance) with γ = w.Gamma. For signatures that Describe
// made it allocates nothing. It returns an error when a signature is nil,
// the histograms' lengths differ or hold invalid values, or w is invalid.
func Distance(a, b *Signature, w Weights) (float64, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	return distance(a, b, w)
}

// DistanceBelow returns Distance(a, b, w) when it is below bound, and
// otherwise a value at least bound that need not be the distance: a
// search for the nearest of many gallery images passes the nearest
// distance so far and learns all it needs. The blob distance's terms are
// non-negative, so the distance is no less than any partial sum of it
// (a rounded sum is no less than a non-negative term of it, and rounding
// keeps order): the sum stops once a part of it reaches bound. Below
// bound, the value is Distance's to the last bit. Errors are Distance's.
func DistanceBelow(a, b *Signature, w Weights, bound float64) (float64, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	return distanceBelow(a, b, w, bound)
}

// distance is Distance without the weights' check.
func distance(a, b *Signature, w Weights) (float64, error) {
	return distanceBelow(a, b, w, math.Inf(1))
}

// distanceBelow is DistanceBelow without the weights' check.
func distanceBelow(a, b *Signature, w Weights, bound float64) (float64, error) {
	if a == nil || b == nil {
		return 0, fmt.Errorf("distance of a nil signature")
	}
	hist, err := histTerm(a, b, w)
	if err != nil {
		return 0, err
	}
	return blobsBelow(a, b, w, hist, bound), nil
}

// histTerm returns the histogram term w.WHSV·d_WH(a, b) of the distance
// of the non-nil signatures a and b, or an error when their histograms'
// lengths differ or hold invalid values.
func histTerm(a, b *Signature, w Weights) (float64, error) {
	if len(a.WHSV) != len(b.WHSV) {
		return 0, fmt.Errorf("wHSV histograms of %d and %d values", len(a.WHSV), len(b.WHSV))
	}
	var dh float64
	if len(a.root) == len(a.WHSV) && len(b.root) == len(b.WHSV) {
		dh = appearance.SqrtBhattacharyya(a.root, b.root)
	} else {
		var err error
		if dh, err = appearance.Bhattacharyya(a.WHSV, b.WHSV); err != nil {
			return 0, fmt.Errorf("wHSV: %w", err)
		}
	}
	return w.WHSV * dh, nil
}

// blobsBelow is distanceBelow once the histogram term hist (histTerm) is
// known: the distance when below bound, else a value at least bound.
func blobsBelow(a, b *Signature, w Weights, hist, bound float64) float64 {
	if hist >= bound {
		return hist
	}
	if len(b.byRise) == len(b.Blobs) {
		// total is the distance once the blob distance dm is known, and no
		// more than it for a partial sum of dm's terms.
		total := func(dm float64) float64 { return hist + w.MSCR*dm }
		return mscrByHeight(a.Blobs, a.H, b.byRise, w.Gamma, total, bound)
	}
	return hist + w.MSCR*MSCRDistance(a.Blobs, b.Blobs, a.H, b.H, w.Gamma)
}

// heightBlob is a blob's height as a fraction of its image's rows, y/h
// as BlobDistance computes it, and its colour.
type heightBlob struct {
	h, l, a, b float64
}

// byHeight returns the blobs of an image of rows rows by increasing
// height, ties in their order.
func byHeight(blobs []Blob, rows int) []heightBlob {
	out := make([]heightBlob, len(blobs))
	for i, b := range blobs {
		out[i] = heightBlob{b.Y / float64(rows), b.L, b.A, b.B}
	}
	slices.SortStableFunc(out, func(x, y heightBlob) int { return cmp.Compare(x.h, y.h) })
	return out
}

// mscrByHeight returns total(MSCRDistance) of the probe blobs a of an
// image of ha rows and the gallery blobs b sorted by height (byHeight),
// MSCRDistance to the last bit, or total of the mean's partial sum once
// that reaches bound (total must not decrease). Each probe blob's
// nearest gallery blob is searched from
// the gallery's nearest height outwards, and a side stops at the first
// blob whose height term γ·|Δh| alone reaches the nearest distance so far.
// That skips no nearer blob: the colour term only adds, a sum rounds to
// no less than either of its non-negative terms, and the rounded height
// term grows away from the probe's height on each side; and the minimum
// does not depend on the order it is taken in.
func mscrByHeight(a []Blob, ha int, b []heightBlob, gamma float64, total func(float64) float64, bound float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return total(1)
	}
	c := 1 - gamma
	n := float64(len(a))
	var sum float64
	for k, p := range a {
		h := p.Y / float64(ha)
		best := math.Inf(1)
		// near returns whether q's height term alone stays below best, and
		// takes q's distance into best when so.
		near := func(q *heightBlob) bool {
			pos := gamma * math.Abs(h-q.h)
			if pos >= best {
				return false
			}
			dl, da, db := p.L-q.l, p.A-q.a, p.B-q.b
			best = min(best, pos+c*math.Sqrt(dl*dl+da*da+db*db)/labScale)
			return true
		}
		lo, hi := 0, len(b) // the first blob at or above h, by bisection
		for lo < hi {
			if m := int(uint(lo+hi) >> 1); b[m].h < h {
				lo = m + 1
			} else {
				hi = m
			}
		}
		for j := lo; j < len(b); j++ {
			if !near(&b[j]) {
				break
			}
		}
		for j := lo - 1; j >= 0; j-- {
			if !near(&b[j]) {
				break
			}
		}
		sum += best
		// The terms left are non-negative: a partial sum at bound already
		// decides (the last blob's check would be the total itself).
		if k < len(a)-1 {
			if t := total(sum / n); t >= bound {
				return t
			}
		}
	}
	return total(sum / n)
}

// MultiShot returns the multiple-shot distance of the probe identity
// seen in the images as from the gallery identity seen in bs: the
// smallest Distance over the pairs (the paper's MvsM, with N = len(as)
// and M = len(bs); N = 1 is single-versus-multiple). It returns an error
// when either set is empty, or as Distance.
func MultiShot(as, bs []*Signature, w Weights) (float64, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	return multiShot(as, bs, w)
}

// multiShot is MultiShot without the weights' check.
func multiShot(as, bs []*Signature, w Weights) (float64, error) {
	if len(as) == 0 || len(bs) == 0 {
		return 0, fmt.Errorf("multiple-shot distance of %d probe and %d gallery images: want at least one each", len(as), len(bs))
	}
	best := math.Inf(1)
	for _, a := range as {
		for _, b := range bs {
			d, err := distance(a, b, w)
			if err != nil {
				return 0, err
			}
			best = min(best, d)
		}
	}
	return best, nil
}

// Rank returns the gallery identities (indices into gallery, each the
// signatures of one identity) in increasing MultiShot distance from the
// probe identity's signatures, ties by index, and the distances in that
// order: the ranking whose first k entries decide whether the probe
// counts at rank k of a cumulative matching characteristic (CMC). It
// returns an error wrapping ctx.Err() once ctx is cancelled (it looks
// between identities), or as MultiShot, naming the identity.
func Rank(ctx context.Context, probe []*Signature, gallery [][]*Signature, w Weights) ([]int, []float64, error) {
	if err := w.Validate(); err != nil {
		return nil, nil, err
	}
	return appearance.RankGallery(ctx, len(gallery), func(g int) (float64, error) {
		return multiShot(probe, gallery[g], w)
	})
}
