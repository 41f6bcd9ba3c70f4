package appearance

import (
	"fmt"
	"math"
)

// Bins are the numbers of bins of the hue, saturation and value
// histograms that a weighted HSV histogram concatenates.
type Bins struct{ H, S, V int }

// DefaultBins returns SDALF's 16 hue, 16 saturation and 4 value bins
// (Farenzena et al., CVPR 2010, Sec. 3.2): value, the channel that
// illumination changes most, gets the fewest.
func DefaultBins() Bins { return Bins{16, 16, 4} }

// Len returns the length H + S + V of a histogram.
func (b Bins) Len() int { return b.H + b.S + b.V }

// Validate returns an error unless every count is at least 1.
func (b Bins) Validate() error {
	if b.H < 1 || b.S < 1 || b.V < 1 {
		return fmt.Errorf("histogram bins %d, %d, %d (H, S, V), want each >= 1", b.H, b.S, b.V)
	}
	return nil
}

// WeightedHistogram returns the weighted HSV histogram of the rows
// [r0, r1) of img; see WeightedHistogramTo, whose errors it returns.
func WeightedHistogram(img *HSV, weight []float64, r0, r1 int, bins Bins) ([]float64, error) {
	if err := bins.Validate(); err != nil {
		return nil, err
	}
	h := make([]float64, bins.Len())
	if err := WeightedHistogramTo(h, img, weight, r0, r1, bins); err != nil {
		return nil, err
	}
	return h, nil
}

// WeightedHistogramTo writes into dst (bins.Len() values) the weighted
// HSV histogram of the rows [r0, r1) of img: the hue, saturation and
// value histograms, concatenated, of the pixels there, pixel i adding
// weight[i] (nil: 1) to bin ⌊c·n⌋ (the last bin for c = 1) of each
// channel c with n bins. The whole is divided by 3·Σ weight[i], so that
// each channel's histogram sums to 1/3 and dst to 1; with no weight in
// the rows dst is all zero. SDALF's wHSV (Farenzena et al., CVPR 2010,
// Sec. 3.2) weights a pixel by a Gaussian of its distance to the body
// part's symmetry axis times its foreground mask.
//
// It returns an error naming the argument when img's planes do not have
// W·H values, dst or weight has the wrong length, the rows are not inside the image, the bins are invalid,
// or a weight is negative or not finite; dst is then unchanged. It
// allocates nothing.
func WeightedHistogramTo(dst []float64, img *HSV, weight []float64, r0, r1 int, bins Bins) error {
	if err := bins.Validate(); err != nil {
		return err
	}
	n := img.W * img.H
	switch {
	case img.Validate() != nil:
		return img.Validate()
	case len(dst) != bins.Len():
		return fmt.Errorf("histogram of %d values, want %d", len(dst), bins.Len())
	case weight != nil && len(weight) != n:
		return fmt.Errorf("weights of %d values for a %d×%d image", len(weight), img.W, img.H)
	case r0 < 0 || r1 < r0 || r1 > img.H:
		return fmt.Errorf("rows [%d, %d) outside the image's %d rows", r0, r1, img.H)
	}
	lo, hi := r0*img.W, r1*img.W
	if weight != nil {
		for i, v := range weight[lo:hi] {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("weight of pixel (%d, %d) = %v, want a finite value >= 0", (lo+i)%img.W, (lo+i)/img.W, v)
			}
		}
	}
	clear(dst)
	hh, hs, hv := dst[:bins.H], dst[bins.H:bins.H+bins.S], dst[bins.H+bins.S:]
	var total float64
	for i := lo; i < hi; i++ {
		wt := 1.0
		if weight != nil {
			wt = weight[i]
		}
		if wt == 0 {
			continue
		}
		total += wt
		hh[bin(img.Hu[i], bins.H)] += wt
		hs[bin(img.S[i], bins.S)] += wt
		hv[bin(img.V[i], bins.V)] += wt
	}
	if total > 0 {
		for i := range dst {
			dst[i] /= 3 * total
		}
	}
	return nil
}

// bin returns the bin of c ∈ [0, 1] among n equal bins.
func bin(c float64, n int) int {
	return min(max(int(c*float64(n)), 0), n-1)
}

// BhattacharyyaCoefficient returns BC(p, q) = Σ_i √(p_i q_i) of two
// histograms of equal length; for histograms that each sum to 1 it lies
// in [0, 1], 1 exactly when p = q. It returns an error when the lengths
// differ or an entry is negative or not finite.
func BhattacharyyaCoefficient(p, q []float64) (float64, error) {
	if len(p) != len(q) {
		return 0, fmt.Errorf("histograms of %d and %d values", len(p), len(q))
	}
	var s float64
	for i := range p {
		if !(p[i] >= 0) || !(q[i] >= 0) || math.IsInf(p[i], 1) || math.IsInf(q[i], 1) {
			return 0, fmt.Errorf("histogram bin %d = %v and %v, want finite values >= 0", i, p[i], q[i])
		}
		s += math.Sqrt(p[i] * q[i])
	}
	return s, nil
}

// Bhattacharyya returns the Bhattacharyya distance
// d(p, q) = √(1 − BC(p, q)) between two histograms that each sum to 1
// (Comaniciu, Ramesh and Meer, PAMI 2003, Eqn. 17), the distance SDALF
// and HPE compare their HSV histograms with: 0 for equal histograms, 1
// for histograms with disjoint support, and a metric. Rounding that
// makes BC exceed 1 gives 0. Errors as for BhattacharyyaCoefficient.
func Bhattacharyya(p, q []float64) (float64, error) {
	bc, err := BhattacharyyaCoefficient(p, q)
	if err != nil {
		return 0, err
	}
	return math.Sqrt(max(0, 1-bc)), nil
}

// SqrtBhattacharyya returns √(1 − Σ_i a_i b_i) for the element-wise
// square roots a = √p and b = √q of two histograms, which a matcher
// computes once per histogram so that each comparison is a dot product.
// It checks nothing and allocates nothing; a and b have equal length.
func SqrtBhattacharyya(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return math.Sqrt(max(0, 1-s))
}
