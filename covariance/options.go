package covariance

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/internal/enum"
)

// RegKind selects how a descriptor is regularised; see Regularization.
type RegKind int

const (
	// TraceRidge adds Eps·(tr C/d)·I, a ridge proportional to the mean
	// eigenvalue of C, the default. It is spd.AddTraceRidge.
	TraceRidge RegKind = iota
	// Ridge adds Eps·I, in the squared units of the features. It is
	// spd.AddRidge.
	Ridge
	// None leaves C unchanged, so that a rank-deficient C (a constant
	// feature, or a region of n ≤ d pixels) is reported as not SPD.
	None
	// DiagRidge adds Eps·diag(C): each feature's variance grows by the
	// fraction Eps, which is R + Eps·I in correlation terms. Unlike the
	// other kinds it is equivariant to feature units (rescaling features
	// by A gives A(C + Eps·diag C)A), so a feature measured in large
	// units, such as the pixel coordinates x and y (variance ≈ 85 at
	// 32×32), cannot swamp features of small variance such as intensity
	// or Gabor magnitudes (≈ 1e-4), as a trace-scaled ridge does. A
	// constant feature keeps variance 0 and is reported as not SPD. It is
	// spd.AddDiagRidge.
	DiagRidge
)

// regKindNames are the names of the kinds, by RegKind.
var regKindNames = enum.Names[RegKind]{TraceRidge: "trace-ridge", Ridge: "ridge", DiagRidge: "diag-ridge", None: "none"}

// String returns "trace-ridge", "ridge", "diag-ridge" or "none".
func (k RegKind) String() string { return regKindNames.String(k) }

// DefaultEps is the regularisation strength used when Regularization.Eps
// is zero. With TraceRidge every eigenvalue of the result is at least
// 1e-4·tr C/d, which bounds its condition number by d/1e-4 + 1 (4.3e5 for
// d = 43): far from the 1/ε ≈ 1e16 at which Cholesky factorisations and the
// log-determinants of the Stein divergence lose all accuracy, while the
// eigenvalues that carry a region's appearance (those above ~1e-4 of the
// mean) move by less than 1e-4 relative.
const DefaultEps = 1e-4

// Regularization says how each descriptor C is made safely positive
// definite before it is checked (by Cholesky factorisation) and returned.
// The zero value is TraceRidge with DefaultEps; use Kind None for the raw
// estimate.
type Regularization struct {
	Kind RegKind
	// Eps is the ridge strength, finite and ≥ 0; zero means DefaultEps
	// for Ridge and TraceRidge, and must be zero for None.
	Eps float64
}

// ParseRegKind parses a RegKind's String form.
func ParseRegKind(s string) (RegKind, error) {
	if k, ok := regKindNames.Parse(s); ok {
		return k, nil
	}
	return 0, fmt.Errorf("covariance: unknown regularisation kind %q (want trace-ridge, ridge, diag-ridge or none)", s)
}

// NewRegularization returns the regularisation of a user's settings, as a
// command-line flag pair or a config gives them: kind is a RegKind's
// String form ("" means trace-ridge) and eps the strength, where 0 means
// no regularisation at all (Kind None) rather than the default strength.
// It returns an error naming the setting for an unknown kind, for kind
// "none" with a strength, and for a strength that is negative or not
// finite.
func NewRegularization(kind string, eps float64) (Regularization, error) {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return Regularization{}, fmt.Errorf("covariance: ridge strength %v: want finite and >= 0 (0: no regularisation)", eps)
	}
	k := TraceRidge
	if kind != "" {
		var err error
		if k, err = ParseRegKind(kind); err != nil {
			return Regularization{}, err
		}
	}
	switch {
	case eps == 0:
		return Regularization{Kind: None}, nil
	case k == None:
		return Regularization{}, fmt.Errorf("covariance: ridge kind none with strength %v: give strength 0 for none", eps)
	}
	return Regularization{Kind: k, Eps: eps}, nil
}

// ParseRegularization parses the String form of a Regularization:
// "none", or KIND:EPS such as "trace-ridge:0.0001" or "diag-ridge:0.1" with
// EPS > 0. ParseRegularization(r.String()) gives r with its default
// strength filled in.
func ParseRegularization(s string) (Regularization, error) {
	if s == None.String() {
		return Regularization{Kind: None}, nil
	}
	kind, num, ok := strings.Cut(s, ":")
	eps, err := strconv.ParseFloat(num, 64)
	if !ok || kind == "" || err != nil || !(eps > 0) {
		return Regularization{}, fmt.Errorf("covariance: regularisation %q: want none or KIND:EPS with EPS > 0, e.g. trace-ridge:0.0001", s)
	}
	r, err := NewRegularization(kind, eps)
	if err != nil {
		return Regularization{}, fmt.Errorf("covariance: regularisation %q: %w", s, err)
	}
	return r, nil
}

// DefaultRegularization returns the regularisation of the zero Options
// with its values spelled out, for manifests: TraceRidge with DefaultEps.
func DefaultRegularization() Regularization {
	return Regularization{Kind: TraceRidge, Eps: DefaultEps}
}

// String returns the kind and strength, e.g. "trace-ridge:0.0001", with
// the default strength filled in.
func (r Regularization) String() string {
	if r.Kind == None {
		return r.Kind.String()
	}
	if r.Eps == 0 {
		r.Eps = DefaultEps
	}
	return fmt.Sprintf("%v:%g", r.Kind, r.Eps)
}

// resolved checks r and returns it with the default strength filled in.
func (r Regularization) resolved() (Regularization, error) {
	if !(r.Eps >= 0) || math.IsInf(r.Eps, 0) {
		return r, fmt.Errorf("covariance: regularisation strength %v must be finite and >= 0", r.Eps)
	}
	switch r.Kind {
	case TraceRidge, Ridge, DiagRidge:
		if r.Eps == 0 {
			r.Eps = DefaultEps
		}
	case None:
		if r.Eps != 0 {
			return r, fmt.Errorf("covariance: regularisation strength %v given with kind none", r.Eps)
		}
	default:
		return r, fmt.Errorf("covariance: unknown regularisation kind %d", int(r.Kind))
	}
	return r, nil
}

// apply adds the ridge of r to the diagonal of the d×d row-major c, with
// the semantics of spd.AddRidge, spd.AddTraceRidge and spd.AddDiagRidge.
func (r Regularization) apply(c []float64, d int) {
	var ridge float64
	switch r.Kind {
	case Ridge:
		ridge = r.Eps
	case TraceRidge:
		ridge = r.Eps * math.Abs(trace(c, d)) / float64(d)
	case DiagRidge:
		for i := range d {
			c[i*d+i] *= 1 + r.Eps
		}
		return
	default:
		return
	}
	for i := range d {
		c[i*d+i] += ridge
	}
}

// Method selects how Extractor.Compute sums over regions.
type Method int

const (
	// Auto chooses Integral when the regions' total area exceeds 5 times
	// the image area and the integral images take at most 2²³ float64s
	// (64 MiB), and Direct otherwise. The paper's layouts (a grid, 50
	// blocks of 32×32 in 640×640, the whole image) all use Direct; heavily
	// overlapping regions such as sliding windows use Integral.
	Auto Method = iota
	// Direct is the two-pass estimator over each region's pixels: cost
	// proportional to the total area of the regions.
	Direct
	// Integral builds integral images of the features and of their
	// products (Tuzel et al.) and reads each region from four corners: a
	// cost proportional to the image area, then constant per region.
	Integral
)

// methodNames are the names of the methods, by Method.
var methodNames = enum.Names[Method]{Auto: "auto", Direct: "direct", Integral: "integral"}

// String returns "auto", "direct" or "integral".
func (m Method) String() string { return methodNames.String(m) }

// Options configures an Extractor. The zero value is the default: the
// sample covariance (SCM), TraceRidge regularisation with DefaultEps, no
// normalisation and automatic choice of method.
//
// A descriptor is made in the order estimator → ridge → normalisation:
// the estimator sees the pixels, which only it can (Ledoit–Wolf's
// shrinkage needs their fourth moments); the ridge then acts on the
// estimate, as it does on the sample covariance, and makes it positive
// definite, which the determinant that NormDet divides by needs; the
// normalisation comes last so that the descriptor has exactly the
// property it asks for (trace 1, determinant 1 or a unit diagonal), which
// a ridge added after it would spoil. A shrinkage estimator makes a
// ridge unnecessary for positive definiteness (Regularization Kind None),
// but both may be combined.
type Options struct {
	Reg    Regularization
	Method Method
	// Estimator is the covariance estimator; the zero value is SCM.
	Estimator Estimator
	// Normalize is the normalisation applied last; the zero value is
	// NormNone.
	Normalize Normalization
}
