package gabor

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/covpipe/covpipe/internal/enum"
)

// Bank geometry: the paper's 5 scales × 8 orientations.
const (
	NumScales       = 5
	NumOrientations = 8
	NumPlanes       = NumScales * NumOrientations
)

// DefaultSupport is the default kernel half-width in units of the envelope's
// standard deviation σ_v = 2π/k_v. Beyond 8.5σ the Gaussian envelope
// exp(-r²/(2σ²)) is below 2.2e-16 (the float64 epsilon) of its peak, so the
// truncated kernel equals the infinitely supported sampled kernel to double
// precision; see the package documentation for the trade-off.
const DefaultSupport = 8.5

// dcTerm is the paper's DC-compensation constant exp(-2π²) ≈ 2.7e-9.
var dcTerm = math.Exp(-2 * math.Pi * math.Pi)

// Border selects how the image is extended beyond its edges.
type Border int

const (
	// ZeroPad treats pixels outside the image as 0 and keeps the central
	// 'same'-size part of the linear convolution: MATLAB's
	// conv2(I, G, 'same') and imfilter's default, which the paper's
	// authors ran. It is the default (the zero value).
	ZeroPad Border = iota
	// Symmetric extends by half-sample mirror reflection (… c b a | a b c …,
	// MATLAB's 'symmetric', scipy.ndimage's 'reflect'), repeated with period
	// 2n for kernels wider than the image.
	Symmetric
)

// borderNames are the names of the borders, by Border.
var borderNames = enum.Names[Border]{ZeroPad: "zero", Symmetric: "symmetric"}

// String returns "zero" or "symmetric", the names ParseBorder accepts.
func (b Border) String() string { return borderNames.String(b) }

// ParseBorder parses "zero" or "symmetric". The error wraps ErrParams.
func ParseBorder(s string) (Border, error) {
	if b, ok := borderNames.Parse(s); ok {
		return b, nil
	}
	return 0, fmt.Errorf("%w: unknown border %q (want zero or symmetric)", ErrParams, s)
}

// Method selects the convolution engine.
type Method int

const (
	// Auto picks the engine with the lower estimated cost for the image size
	// and border.
	Auto Method = iota
	// Direct is separable spatial convolution.
	Direct
	// FFT works in the Fourier domain of the extended image: the DCT-II of
	// the image for Symmetric borders, the 2-D DFT of the zero-padded image
	// for ZeroPad (both with gonum.org/v1/gonum/dsp/fourier).
	FFT
)

// methodNames are the names of the methods, by Method.
var methodNames = enum.Names[Method]{Auto: "auto", Direct: "direct", FFT: "fft"}

// String returns "auto", "direct" or "fft".
func (m Method) String() string { return methodNames.String(m) }

// Params configures a Bank. The zero value gives the paper's bank with the
// package defaults: ZeroPad border, Auto method, DefaultSupport.
type Params struct {
	Border Border
	Method Method
	// Support is the kernel half-width in units of σ_v = 2π/k_v: the kernel
	// of scale v is sampled on the square |x|, |y| ≤ R_v = ceil(Support·σ_v).
	// Zero means DefaultSupport; otherwise it must lie in [1, 20].
	Support float64
}

// ErrParams is wrapped by NewBank for invalid Params.
var ErrParams = errors.New("gabor: invalid parameters")

// Bank is the paper's bank of 40 Gabor wavelets. It is immutable after
// NewBank (per-image-size plans are cached internally under a lock) and safe
// for concurrent use; per-goroutine state lives in a Workspace.
type Bank struct {
	border  Border
	method  Method
	support float64
	scales  [NumScales]scale

	mu    sync.Mutex
	plans map[planKey]any
}

// scale holds the 1-D factors of the kernels of one scale v, indexed by
// d+radius for d in [-radius, radius].
type scale struct {
	radius int     // R_v
	amp    float64 // k_v²/(4π²)
	env    []float64
	// x factors for u = 0..4: hc = env·cos(k c d), hs = env·sin(k c d).
	hc, hs [5][]float64
	// y factors for u = 0..4: qc = amp·env·cos(k s d), qs = amp·env·sin(k s d).
	qc, qs [5][]float64
	// dc = amp·exp(-2π²)·env, the y factor of the DC term (its x factor is env).
	dc []float64
}

// cosSin holds cos θ_u and sin θ_u for u = 0..4 with the exact values at
// u = 0 and u = 4; orientations u = 5..7 use (−cos θ_{8−u}, sin θ_{8−u}),
// so that the engines can share work between θ and π−θ exactly.
var cosSin = func() (cs [5][2]float64) {
	for u := range 5 {
		th := Angle(u)
		cs[u] = [2]float64{math.Cos(th), math.Sin(th)}
	}
	cs[0] = [2]float64{1, 0}
	cs[4] = [2]float64{0, 1}
	return cs
}()

// NewBank returns the bank for p, or an error wrapping ErrParams when p has
// an unknown Border or Method or a Support outside [1, 20].
func NewBank(p Params) (*Bank, error) {
	switch p.Border {
	case Symmetric, ZeroPad:
	default:
		return nil, fmt.Errorf("%w: unknown border %v", ErrParams, p.Border)
	}
	switch p.Method {
	case Auto, Direct, FFT:
	default:
		return nil, fmt.Errorf("%w: unknown method %v", ErrParams, p.Method)
	}
	sup := p.Support
	if sup == 0 {
		sup = DefaultSupport
	}
	if !(sup >= 1 && sup <= 20) {
		return nil, fmt.Errorf("%w: support %v σ outside [1, 20]", ErrParams, p.Support)
	}
	b := &Bank{border: p.Border, method: p.Method, support: sup, plans: make(map[planKey]any)}
	for v := range NumScales {
		b.scales[v] = newScale(v, sup)
	}
	return b, nil
}

func newScale(v int, sup float64) scale {
	k := Wavenumber(v)
	r := int(math.Ceil(sup * Sigma(v)))
	s := scale{radius: r, amp: k * k / (4 * math.Pi * math.Pi)}
	n := 2*r + 1
	s.env = make([]float64, n)
	s.dc = make([]float64, n)
	for i := range n {
		d := float64(i - r)
		s.env[i] = math.Exp(-k * k * d * d / (8 * math.Pi * math.Pi))
		s.dc[i] = s.amp * dcTerm * s.env[i]
	}
	for u := range 5 {
		c, sn := cosSin[u][0], cosSin[u][1]
		s.hc[u], s.hs[u] = make([]float64, n), make([]float64, n)
		s.qc[u], s.qs[u] = make([]float64, n), make([]float64, n)
		for i := range n {
			d := float64(i - r)
			e := s.env[i]
			s.hc[u][i] = e * math.Cos(k*c*d)
			s.hs[u][i] = e * math.Sin(k*c*d)
			s.qc[u][i] = s.amp * e * math.Cos(k*sn*d)
			s.qs[u][i] = s.amp * e * math.Sin(k*sn*d)
		}
	}
	return s
}

// Wavenumber returns k_v = 1/sqrt(2^(v−1)) (paper, Sec. 5.1 "Face
// Recognition"), the spatial angular frequency of scale v in radians per
// pixel: √2, 1, 1/√2, 1/2, 1/(2√2) for v = 0..4. It is defined for any v.
func Wavenumber(v int) float64 { return math.Pow(2, -float64(v-1)/2) }

// Angle returns θ_u = πu/8 (paper, Sec. 5.1), the orientation of filter u in
// radians, measured from the +x (column) axis towards +y (increasing row
// index, i.e. downwards on screen). It is defined for any u.
func Angle(u int) float64 { return math.Pi * float64(u) / NumOrientations }

// Sigma returns σ_v = 2π/k_v, the standard deviation in pixels of the
// Gaussian envelope exp(−k_v²(x²+y²)/(8π²)) of scale v: about 4.44 pixels
// at v = 0 and 17.8 pixels at v = 4. It is defined for any v.
func Sigma(v int) float64 { return 2 * math.Pi / Wavenumber(v) }

// Index returns the plane index v·8+u of scale v and orientation u, the
// paper's feature order |G_{0,0}|, …, |G_{0,7}|, |G_{1,0}|, …, |G_{4,7}|.
func Index(v, u int) int { return v*NumOrientations + u }

// Name returns the stable short name "G_v<v>_u<u>" of plane (v, u), for
// example "G_v0_u0" for plane 0 and "G_v4_u7" for plane 39.
func Name(v, u int) string { return fmt.Sprintf("G_v%d_u%d", v, u) }

// Border returns the bank's border extension.
func (b *Bank) Border() Border { return b.border }

// Method returns the bank's requested method (possibly Auto; see
// Workspace.Method for the engine actually used at a size).
func (b *Bank) Method() Method { return b.method }

// Support returns the kernel half-width in units of σ_v (DefaultSupport
// unless Params.Support was set).
func (b *Bank) Support() float64 { return b.support }

// Len returns the number of filters, NumPlanes (40).
func (b *Bank) Len() int { return NumPlanes }

// Radius returns the kernel half-width R_v = ceil(Support·2π/k_v) of scale
// v, or −1 when v is outside [0, NumScales).
func (b *Bank) Radius(v int) int {
	if v < 0 || v >= NumScales {
		return -1
	}
	return b.scales[v].radius
}

// Kernel is a sampled wavelet on the square |x|, |y| ≤ Radius, stored
// row-major with the origin at the centre: offset (x, y) is at index
// (y+Radius)·Size()+(x+Radius), x a column offset and y a row offset.
type Kernel struct {
	Re, Im []float64
	Radius int
}

// Size returns the kernel's side 2·Radius+1.
func (k Kernel) Size() int { return 2*k.Radius + 1 }

// At returns ψ(x, y) for |x|, |y| ≤ Radius, and 0 outside the support.
func (k Kernel) At(x, y int) complex128 {
	if x < -k.Radius || x > k.Radius || y < -k.Radius || y > k.Radius {
		return 0
	}
	i := (y+k.Radius)*k.Size() + x + k.Radius
	return complex(k.Re[i], k.Im[i])
}

// Kernel returns a copy of the sampled wavelet of scale v and orientation u,
//
//	ψ_{u,v}(x, y) = k_v²/(4π²) · exp(−k_v²(x²+y²)/(8π²)) ·
//	                (exp(i k_v (x cos θ_u + y sin θ_u)) − exp(−2π²)),
//
// (paper, Sec. 5.1; Lee, IEEE PAMI 18(10), 1996), on |x|, |y| ≤ Radius(v).
// It returns an error for v outside [0, 5) or u outside [0, 8).
func (b *Bank) Kernel(v, u int) (Kernel, error) {
	if v < 0 || v >= NumScales || u < 0 || u >= NumOrientations {
		return Kernel{}, fmt.Errorf("gabor: kernel (v=%d, u=%d) outside 0 ≤ v < %d, 0 ≤ u < %d", v, u, NumScales, NumOrientations)
	}
	s := &b.scales[v]
	uu, sign := u, 1.0
	if u > 4 {
		uu, sign = NumOrientations-u, -1
	}
	n := 2*s.radius + 1
	k := Kernel{Re: make([]float64, n*n), Im: make([]float64, n*n), Radius: s.radius}
	for iy := range n {
		qc, qs := s.qc[uu][iy], s.qs[uu][iy]
		for ix := range n {
			hc, hs := s.hc[uu][ix], sign*s.hs[uu][ix]
			k.Re[iy*n+ix] = hc*qc - hs*qs - s.env[ix]*s.dc[iy]
			k.Im[iy*n+ix] = hs*qc + hc*qs
		}
	}
	return k, nil
}
