package spd

import (
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Metric names a distance or divergence between SPD matrices, so that a
// configuration can choose one by name, as pyRiemann's
// distance(A, B, metric=...) does. Distance evaluates it. The zero Metric
// is not valid, so a forgotten setting is an error rather than a silent
// default.
type Metric int

// The metrics, in documentation order (see Metrics). Each is known by the
// names in brackets (ParseMetric); the first is the one String returns.
// Kernels on SPD matrices take the name of the metric they are built on
// (a config's `kernel: stein` or `kernel: log-euclidean`), so that one
// table names both.
const (
	// AIRMMetric ("airm", or pyRiemann's "riemann") is the affine-invariant
	// Riemannian distance d_g(X, Y) = sqrt(Σ_i log² λ_i(X⁻¹Y)); see
	// Workspace.AIRM.
	AIRMMetric Metric = iota + 1
	// SteinMetric ("stein") is the symmetric Stein divergence of Eqn. 3,
	// S(X, Y) = log det((X+Y)/2) − ½ log det(XY), itself and not its square
	// root; see Distance and Workspace.Stein.
	SteinMetric
	// LogEuclideanMetric ("log-euclidean"; "logeuclid", pyRiemann's name,
	// is accepted but deprecated) is the log-Euclidean distance
	// d_LE(X, Y) = ‖log X − log Y‖_F; see Workspace.LogEuclidean.
	LogEuclideanMetric
	// ThompsonMetric ("thompson") is the Thompson metric of Property 1,
	// δ_T(X, Y) = max_i |log λ_i(X Y⁻¹)|; see Workspace.Thompson.
	ThompsonMetric
	// WassersteinMetric ("wasserstein", pyRiemann's name) is the
	// Bures–Wasserstein distance, the Wasserstein-2 distance of the
	// centred Gaussians N(0, X) and N(0, Y),
	// d_BW(X, Y) = (tr X + tr Y − 2 tr (X^{1/2} Y X^{1/2})^{1/2})^{1/2};
	// see Workspace.Wasserstein.
	WassersteinMetric
	// EuclidMetric ("euclid", pyRiemann's name) is the Euclidean
	// (Frobenius) distance ‖X − Y‖_F; see Workspace.Euclid.
	EuclidMetric
)

// metricNames gives each metric's names, the canonical one first, and
// the deprecated names it is still known by, in documentation order. It
// is read only.
var metricNames = [...]struct {
	m          Metric
	names      []string
	deprecated []string
}{
	{AIRMMetric, []string{"airm", "riemann"}, nil},
	{SteinMetric, []string{"stein"}, nil},
	{LogEuclideanMetric, []string{"log-euclidean"}, []string{"logeuclid"}},
	{ThompsonMetric, []string{"thompson"}, nil},
	{WassersteinMetric, []string{"wasserstein"}, nil},
	{EuclidMetric, []string{"euclid"}, nil},
}

// Metrics returns every Metric in documentation order.
func Metrics() []Metric {
	out := make([]Metric, len(metricNames))
	for i, e := range metricNames {
		out[i] = e.m
	}
	return out
}

// String returns the metric's canonical name ("airm", "stein",
// "log-euclidean", "thompson", "wasserstein", "euclid"), or "Metric(n)"
// for an invalid value.
func (m Metric) String() string {
	for _, e := range metricNames {
		if e.m == m {
			return e.names[0]
		}
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// ParseMetric returns the metric with the given name: "airm" or "riemann",
// "stein", "log-euclidean", "thompson", "wasserstein" or "euclid" (exact,
// lower case), or a
// deprecated name that DeprecatedMetricName reports ("logeuclid"). For
// any other name it returns an error wrapping ErrParameter that lists the
// valid names. pyRiemann's "logdet" is deliberately not accepted: it is
// √S, whereas SteinMetric is S (see Distance).
func ParseMetric(name string) (Metric, error) {
	for _, e := range metricNames {
		if slices.Contains(e.names, name) || slices.Contains(e.deprecated, name) {
			return e.m, nil
		}
	}
	var valid []string
	for _, e := range metricNames {
		valid = append(valid, strings.Join(e.names, " or "))
	}
	return 0, fmt.Errorf("%w: unknown metric %q (valid: %s)", ErrParameter, name, strings.Join(valid, ", "))
}

// DeprecatedMetricName reports whether name is a deprecated name of a
// metric that ParseMetric still accepts, and the metric's canonical name,
// so that a configuration loader can warn: "logeuclid" (pyRiemann's
// spelling) is deprecated for "log-euclidean", the one spelling of the
// metric and of its kernel.
func DeprecatedMetricName(name string) (canonical string, deprecated bool) {
	for _, e := range metricNames {
		if slices.Contains(e.deprecated, name) {
			return e.names[0], true
		}
	}
	return "", false
}

// MarshalText returns the canonical name, so that a Metric reads and writes
// as its name in YAML, JSON and flags. It returns an error wrapping
// ErrParameter for an invalid Metric.
func (m Metric) MarshalText() ([]byte, error) {
	if !m.valid() {
		return nil, fmt.Errorf("%w: unknown metric %v", ErrParameter, m)
	}
	return []byte(m.String()), nil
}

// UnmarshalText sets m from a name accepted by ParseMetric. It returns the
// error of ParseMetric, leaving m unchanged, for another name, and an
// error wrapping ErrParameter for a nil m.
func (m *Metric) UnmarshalText(text []byte) error {
	v, err := ParseMetric(string(text))
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("%w: UnmarshalText into a nil *Metric", ErrParameter)
	}
	*m = v
	return nil
}

func (m Metric) valid() bool { return m >= AIRMMetric && m <= EuclidMetric }

// Distance returns m(X, Y) for SPD matrices X and Y of the workspace's
// size, allocating nothing (on success):
//
//	airm           d_g(X, Y)  = ‖log(X^{−1/2} Y X^{−1/2})‖_F = sqrt(Σ_i log² λ_i(X⁻¹Y))
//	               (Pennec et al. 2006; the paper's Section 2.1; Workspace.AIRM)
//	stein          S(X, Y)    = log det((X+Y)/2) − ½ log det(XY)
//	               (Sra 2012; the paper's Eqn. 3; Workspace.Stein)
//	log-euclidean  d_LE(X, Y) = ‖log X − log Y‖_F
//	               (Arsigny et al. 2007; Workspace.LogEuclidean)
//	thompson       δ_T(X, Y)  = max_i |log λ_i(X Y⁻¹)|
//	               (Thompson 1963; the paper's Property 1, Eqn. 4; Workspace.Thompson)
//	wasserstein    d_BW(X, Y) = (tr X + tr Y − 2 tr (X^{1/2} Y X^{1/2})^{1/2})^{1/2}
//	               (Bhatia, Jain and Lim, Expo. Math. 2019; Workspace.Wasserstein)
//	euclid         d_F(X, Y)  = ‖X − Y‖_F (Workspace.Euclid)
//
// λ_i(X⁻¹Y) are the generalised eigenvalues of the pair. All six are
// symmetric and zero exactly when X = Y (wasserstein to its round-off,
// see Workspace.Wasserstein); airm, stein and thompson are invariant to
// congruence, m(AXAᵀ, AYAᵀ) = m(X, Y) for invertible A, log-euclidean only
// to orthogonal A and scaling, and wasserstein and euclid to orthogonal
// A, scaling both arguments by c scaling them by √c and c. By Eqn. 4,
// S ≤ d_g²/8 ≤ δ_T (S + d log d)/4.
//
// For stein Distance returns the divergence S itself, not √S. S is not a
// metric (it breaks the triangle inequality: for 1×1 matrices
// S(1, e⁴) = log cosh 2 > 2 log cosh 1 = S(1, e²) + S(e², e⁴)); √S is
// (Sra 2012), and it is what pyRiemann's distance_logdet returns. S is
// returned because it is the quantity of the paper (Eqn. 3, and the
// exponent of the Stein kernel of Eqn. 5) and because it then equals, to
// the last bit, Stein and the entries of SteinDivergences: a nearest
// neighbour search through Distance ranks exactly as one over cached
// divergences. Ranking by √S gives the same order, as √ is increasing, but
// rounding √ can merge neighbouring values of S into ties. Callers that
// need a metric take math.Sqrt of the result.
//
// All accept only matrices that are SPD enough (their Cholesky
// factorisation succeeds; euclid too, so that the six refuse the same
// matrices); log-euclidean, like LogTo, replaces an eigenvalue the
// solver returns <= 0 (round-off) by λ_max·d·ε.
//
// Distance returns an error wrapping ErrParameter for an invalid Metric,
// ErrNotSPD for a matrix that is not positive definite, ErrNotFinite for
// NaN or Inf entries, ErrDimension for a matrix of another size than the
// workspace's and ErrEmpty for an empty one; the message starts with the
// metric's name and names the argument (X or Y).
func (w *Workspace) Distance(m Metric, x, y mat.Symmetric) (float64, error) {
	var (
		d   float64
		err error
	)
	switch m {
	case AIRMMetric:
		d, err = w.AIRM(x, y)
	case SteinMetric:
		d, err = w.Stein(x, y)
	case LogEuclideanMetric:
		d, err = w.LogEuclidean(x, y)
	case ThompsonMetric:
		d, err = w.Thompson(x, y)
	case WassersteinMetric:
		d, err = w.Wasserstein(x, y)
	case EuclidMetric:
		d, err = w.Euclid(x, y)
	default:
		return 0, fmt.Errorf("%w: unknown metric %v", ErrParameter, m)
	}
	if err != nil {
		return 0, fmt.Errorf("%v: %w", m, err)
	}
	return d, nil
}

// Distance returns m(X, Y) for SPD matrices X and Y of the same size with
// a new workspace; see Workspace.Distance for the formulas, what it returns
// for SteinMetric and the errors. In a loop, use Workspace.Distance, which
// allocates nothing.
func Distance(m Metric, x, y mat.Symmetric) (float64, error) {
	if !m.valid() {
		return 0, fmt.Errorf("%w: unknown metric %v", ErrParameter, m)
	}
	w, err := pairWorkspace(x, y)
	if err != nil {
		return 0, fmt.Errorf("%v: %w", m, err)
	}
	return w.Distance(m, x, y)
}
