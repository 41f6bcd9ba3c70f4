package covariance_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/internal/covtest"
	"github.com/covpipe/covpipe/spd"
)

var methods = []covariance.Method{covariance.Direct, covariance.Integral}

// TestOfNaive compares the direct path with the textbook loop for every d
// up to 11, which covers each remainder of the 2×4 tiles of the kernel.
func TestOfNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const w, h = 23, 17
	for d := 1; d <= 11; d++ {
		planes := randomPlanes(rng, d, w, h, []float64{0, 3, -7}, []float64{1, 0.1, 5})
		for _, r := range append(randomRegions(rng, 5, w, h, 2), covariance.Whole(w, h), covariance.Region{X: 22, Y: 3, W: 1, H: 2}) {
			got := make([]float64, d*d)
			if err := covariance.Of(got, planes, w, h, r); err != nil {
				t.Fatal(err)
			}
			if e := relFrob(got, covtest.Naive(planes, w, r)); e > 1e-13 {
				t.Errorf("d=%d region %v: relative difference %.3g from the textbook loop", d, r, e)
			}
		}
	}
	// Wide regions with many features are summed in chunks of 32768/(d·W)
	// rows: three chunks of at most 18 rows for the first two regions, one
	// for the third.
	const bw, bh, bd = 200, 41, 9
	planes := randomPlanes(rng, bd, bw, bh, []float64{2, -1}, []float64{0.5, 3})
	for _, r := range []covariance.Region{covariance.Whole(bw, bh), {X: 1, Y: 2, W: 199, H: 38}, {X: 150, Y: 0, W: 50, H: 41}} {
		got := make([]float64, bd*bd)
		if err := covariance.Of(got, planes, bw, bh, r); err != nil {
			t.Fatal(err)
		}
		if e := relFrob(got, covtest.Naive(planes, bw, r)); e > 1e-13 {
			t.Errorf("d=%d region %v: relative difference %.3g from the textbook loop", bd, r, e)
		}
	}
}

// TestClosedForm checks both paths against the closed form for the
// coordinate features x and y over a W×H region (n = WH pixels):
// var x = (W²−1)/12 · n/(n−1), var y = (H²−1)/12 · n/(n−1), cov(x, y) = 0,
// and for the linear feature f = 2x − 3y + 5: var f = 4 var x + 9 var y,
// cov(f, x) = 2 var x, cov(f, y) = −3 var y.
func TestClosedForm(t *testing.T) {
	const w, h = 64, 48
	planes := [][]float64{
		feature(w, h, func(x, y int) float64 { return float64(x) }),
		feature(w, h, func(x, y int) float64 { return float64(y) }),
		feature(w, h, func(x, y int) float64 { return 2*float64(x) - 3*float64(y) + 5 }),
	}
	for _, r := range []covariance.Region{
		{W: 32, H: 32}, {X: 5, Y: 40, W: 7, H: 3}, {X: 63, Y: 0, W: 1, H: 48}, {X: 10, Y: 47, W: 2, H: 1}, covariance.Whole(w, h),
	} {
		n := float64(r.W * r.H)
		vx := (float64(r.W*r.W) - 1) / 12 * n / (n - 1)
		vy := (float64(r.H*r.H) - 1) / 12 * n / (n - 1)
		want := []float64{
			vx, 0, 2 * vx,
			0, vy, -3 * vy,
			2 * vx, -3 * vy, 4*vx + 9*vy,
		}
		got := make([]float64, 9)
		if err := covariance.Of(got, planes, w, h, r); err != nil {
			t.Fatal(err)
		}
		if e := relFrob(got, want); e > 1e-14 {
			t.Errorf("Of %v: got %v, want %v", r, got, want)
		}
		// f is a combination of x and y: the raw covariance is singular
		// and, without regularisation, not SPD.
		for _, m := range methods {
			e := mustExtractor(t, 2, covariance.Options{Reg: covariance.Regularization{Kind: covariance.None}, Method: m})
			err := e.Compute(got[:4], planes[:2], w, h, []covariance.Region{r})
			if r.W == 1 || r.H == 1 {
				if !errors.Is(err, covariance.ErrNotSPD) {
					t.Errorf("%v %v: a constant coordinate gave error %v, want ErrNotSPD", m, r, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v %v: %v", m, r, err)
			}
			if e := relFrob(got[:4], []float64{vx, 0, 0, vy}); e > 1e-12 {
				t.Errorf("%v %v: got %v, want diag(%v, %v)", m, r, got[:4], vx, vy)
			}
		}
	}
}

// TestLargeOffset: features 3·10¹⁴ + x and 3·10¹⁴ + y are exact in
// float64 but their sums over 64×64 pixels are not, so the computed means
// are off by a good fraction of a unit. The corrected two-pass estimator
// (and the integral images, whose region sums carry the same correction
// p pᵀ/n) must still give the closed form of TestClosedForm; the plain
// two-pass formula is off by 4e-4 relative.
func TestLargeOffset(t *testing.T) {
	const w, h, off = 64, 64, 3e14
	planes := [][]float64{
		feature(w, h, func(x, y int) float64 { return off + float64(x) }),
		feature(w, h, func(x, y int) float64 { return off + float64(y) }),
	}
	for _, r := range []covariance.Region{covariance.Whole(w, h), {X: 3, Y: 5, W: 32, H: 16}} {
		n := float64(r.W * r.H)
		want := []float64{(float64(r.W*r.W) - 1) / 12 * n / (n - 1), 0, 0, (float64(r.H*r.H) - 1) / 12 * n / (n - 1)}
		for _, m := range methods {
			got := make([]float64, 4)
			e := mustExtractor(t, 2, covariance.Options{Reg: covariance.Regularization{Kind: covariance.None}, Method: m})
			if err := e.Compute(got, planes, w, h, []covariance.Region{r}); err != nil {
				t.Fatal(err)
			}
			if e := relFrob(got, want); e > 1e-12 {
				t.Errorf("%v %v: got %v, want %v (relative error %.3g)", m, r, got, want, e)
			}
		}
	}
}

// TestConstantFeature: a constant feature has zero variance, so without
// regularisation the descriptor is not SPD and the error names the region;
// the default trace ridge repairs it as long as another feature varies.
func TestConstantFeature(t *testing.T) {
	const w, h = 16, 16
	rng := rand.New(rand.NewPCG(3, 4))
	planes := [][]float64{
		feature(w, h, func(x, y int) float64 { return rng.Float64() }),
		feature(w, h, func(x, y int) float64 { return 0.25 }),
	}
	regions, err := covariance.Grid(w, h, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, len(regions)*4)
	for _, m := range methods {
		e := mustExtractor(t, 2, covariance.Options{Reg: covariance.Regularization{Kind: covariance.None}, Method: m})
		err := e.Compute(dst, planes, w, h, regions)
		var re *covariance.RegionError
		if !errors.As(err, &re) || !errors.Is(err, covariance.ErrNotSPD) || !errors.Is(err, spd.ErrNotSPD) || re.Index != 0 || re.Region != regions[0] {
			t.Fatalf("%v: error %v, want a RegionError for region 0 wrapping covariance.ErrNotSPD, which is spd.ErrNotSPD", m, err)
		}
		if msg := fmt.Errorf("image a.png: %w", err).Error(); !strings.HasPrefix(msg, "image a.png: region 0 (8x8+0+0): spd: matrix is not positive definite") {
			t.Errorf("%v: message %q", m, msg)
		}
		if err := mustExtractor(t, 2, covariance.Options{Method: m}).Compute(dst, planes, w, h, regions); err != nil {
			t.Errorf("%v with the default regularisation: %v", m, err)
		}
		// All features constant: the trace is zero, so is the trace ridge.
		err = mustExtractor(t, 1, covariance.Options{Method: m}).Compute(dst[:4], planes[1:], w, h, regions)
		if !errors.Is(err, covariance.ErrNotSPD) {
			t.Errorf("%v: constant image with trace ridge: error %v, want ErrNotSPD", m, err)
		}
		err = mustExtractor(t, 1, covariance.Options{Method: m, Reg: covariance.Regularization{Kind: covariance.Ridge}}).Compute(dst[:4], planes[1:], w, h, regions)
		if err != nil || dst[0] != covariance.DefaultEps {
			t.Errorf("%v: constant image with ridge: %v, C = %v, want %v", m, err, dst[0], covariance.DefaultEps)
		}
	}
}

// TestIntegralMatchesDirect: the integral images agree with the direct
// two-pass sums to 1e-10 (relative Frobenius) on random regions of images
// whose features have large offsets and small spreads (means 1e3, −2e3,
// standard deviations down to 1e-2), which integral images of the raw
// features would resolve only to about 1e-6.
func TestIntegralMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range []struct{ w, h, d int }{{256, 192, 5}, {61, 37, 9}, {640, 480, 3}} {
		planes := randomPlanes(rng, size.d, size.w, size.h, []float64{1e3, -2e3, 0.5}, []float64{1, 1e-2, 0.1, 3})
		regions := randomRegions(rng, 300, size.w, size.h, 8)
		compareMethods(t, planes, size.w, size.h, regions, 1e-10)
	}
}

// TestIntegralBrodatz compares the two paths on random regions of a real
// texture with the paper's features.
func TestIntegralBrodatz(t *testing.T) {
	for _, name := range []string{"D1.gif", "D77.gif"} {
		planes, w, h := brodatz(t, name)
		rng := rand.New(rand.NewPCG(7, 8))
		compareMethods(t, planes, w, h, randomRegions(rng, 300, w, h, 16), 1e-10)
		blocks, err := covariance.RandomBlocks(w, h, 50, 32, 9)
		if err != nil {
			t.Fatal(err)
		}
		compareMethods(t, planes, w, h, blocks, 1e-10)
	}
}

func compareMethods(t *testing.T, planes [][]float64, w, h int, regions []covariance.Region, tol float64) {
	t.Helper()
	compareMethodsWith(t, covariance.Options{Reg: none}, planes, w, h, regions, tol)
}

// compareMethodsWith compares the integral images with the direct path
// under opts (whose Method it sets).
func compareMethodsWith(t *testing.T, opts covariance.Options, planes [][]float64, w, h int, regions []covariance.Region, tol float64) {
	t.Helper()
	d := len(planes)
	var out [2][]float64
	for i, m := range methods {
		out[i] = make([]float64, len(regions)*d*d)
		opts.Method = m
		if err := mustExtractor(t, d, opts).Compute(out[i], planes, w, h, regions); err != nil {
			t.Fatalf("%v: %v", m, err)
		}
	}
	var worst float64
	for k, r := range regions {
		a, b := out[1][k*d*d:(k+1)*d*d], out[0][k*d*d:(k+1)*d*d]
		e := relFrob(a, b)
		worst = max(worst, e)
		if e > tol {
			t.Errorf("%dx%d d=%d %v region %v: integral differs from direct by %.3g relative", w, h, d, opts.Estimator, r, e)
		}
	}
	t.Logf("%dx%d d=%d %v, %d regions: worst relative difference %.3g", w, h, d, opts.Estimator, len(regions), worst)
}

// TestRegularization checks each kind against hand values on the x, y
// features of a 4×2 region: C = diag(10/7, 2/7) (see TestClosedForm).
func TestRegularization(t *testing.T) {
	const w, h = 8, 4
	planes := [][]float64{
		feature(w, h, func(x, y int) float64 { return float64(x) }),
		feature(w, h, func(x, y int) float64 { return float64(y) }),
	}
	r := []covariance.Region{{X: 1, Y: 1, W: 4, H: 2}}
	vx, vy := 10.0/7, 2.0/7
	for _, tc := range []struct {
		reg   covariance.Regularization
		ridge float64
	}{
		{covariance.Regularization{Kind: covariance.None}, 0},
		{covariance.Regularization{Kind: covariance.Ridge, Eps: 0.5}, 0.5},
		{covariance.Regularization{Kind: covariance.Ridge}, 1e-4},
		{covariance.Regularization{Kind: covariance.TraceRidge, Eps: 0.1}, 0.1 * (vx + vy) / 2},
		{covariance.Regularization{}, 1e-4 * (vx + vy) / 2},
		{covariance.DefaultRegularization(), 1e-4 * (vx + vy) / 2},
	} {
		for _, m := range methods {
			got := make([]float64, 4)
			if err := mustExtractor(t, 2, covariance.Options{Reg: tc.reg, Method: m}).Compute(got, planes, w, h, r); err != nil {
				t.Fatal(err)
			}
			want := []float64{vx + tc.ridge, 0, 0, vy + tc.ridge}
			if e := relFrob(got, want); e > 1e-14 {
				t.Errorf("%v %v: got %v, want %v", tc.reg, m, got, want)
			}
		}
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, opts := range []covariance.Options{
		{Reg: covariance.Regularization{Kind: covariance.Ridge, Eps: -1}},
		{Reg: covariance.Regularization{Kind: covariance.TraceRidge, Eps: math.NaN()}},
		{Reg: covariance.Regularization{Kind: covariance.Ridge, Eps: math.Inf(1)}},
		{Reg: covariance.Regularization{Kind: covariance.None, Eps: 1e-3}},
		{Reg: covariance.Regularization{Kind: 7}},
		{Method: 9},
	} {
		if _, err := covariance.NewExtractor(3, opts); err == nil {
			t.Errorf("NewExtractor(%+v) succeeded", opts)
		}
	}
	for _, d := range []int{0, -1, covariance.MaxFeatures + 1, 1e9, math.MaxInt} {
		if _, err := covariance.NewExtractor(d, covariance.Options{}); err == nil {
			t.Errorf("NewExtractor(%d) succeeded", d)
		}
	}
	if _, err := covariance.NewExtractor(covariance.MaxFeatures, covariance.Options{}); err != nil {
		t.Errorf("NewExtractor(MaxFeatures): %v", err)
	}
}

// TestNonFinite: a NaN or ±Inf feature inside a region is an error naming
// the region, the feature and the pixel.
func TestNonFinite(t *testing.T) {
	const w, h = 32, 32
	rng := rand.New(rand.NewPCG(10, 11))
	regions, err := covariance.Grid(w, h, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		planes := randomPlanes(rng, 3, w, h, []float64{0}, []float64{1})
		planes[2][13*w+9] = bad // pixel (9, 13): region 1*4+1 = 5
		for _, m := range methods {
			dst := make([]float64, len(regions)*9)
			err := mustExtractor(t, 3, covariance.Options{Method: m}).Compute(dst, planes, w, h, regions)
			if !errors.Is(err, covariance.ErrNotFinite) || !errors.Is(err, spd.ErrNotFinite) || !strings.Contains(err.Error(), fmt.Sprintf("feature 2 at pixel (9, 13) is %v", bad)) {
				t.Errorf("%v with %v: error %v", m, bad, err)
			}
			var re *covariance.RegionError
			if m == covariance.Direct && (!errors.As(err, &re) || re.Index != 5) {
				t.Errorf("direct with %v: error %v does not name region 5", bad, err)
			}
		}
		if err := covariance.Of(make([]float64, 9), planes, w, h, regions[5]); !errors.Is(err, covariance.ErrNotFinite) {
			t.Errorf("Of with %v: error %v", bad, err)
		}
		// The direct path reads only the regions' pixels.
		if err := mustExtractor(t, 3, covariance.Options{Method: covariance.Direct}).Compute(make([]float64, 9), planes, w, h, regions[:1]); err != nil {
			t.Errorf("direct on a region without the %v: %v", bad, err)
		}
	}
	// Finite features whose products overflow.
	planes := [][]float64{feature(w, h, func(x, y int) float64 { return 1e200 * float64(x%2) })}
	for _, m := range methods {
		err := mustExtractor(t, 1, covariance.Options{Method: m}).Compute(make([]float64, 1), planes, w, h, regions[:1])
		if !errors.Is(err, covariance.ErrNotFinite) {
			t.Errorf("%v: overflow gave error %v", m, err)
		}
	}
}

// TestSymmetricOutput: every descriptor is exactly symmetric and accepted
// by spd.NewSetFromData.
func TestSymmetricOutput(t *testing.T) {
	const w, h, d = 48, 40, 7
	rng := rand.New(rand.NewPCG(12, 13))
	planes := randomPlanes(rng, d, w, h, []float64{1, 50}, []float64{0.3, 2})
	regions := randomRegions(rng, 40, w, h, 4)
	for _, m := range methods {
		dst := make([]float64, len(regions)*d*d)
		if err := mustExtractor(t, d, covariance.Options{Method: m}).Compute(dst, planes, w, h, regions); err != nil {
			t.Fatal(err)
		}
		for k := range regions {
			c := dst[k*d*d : (k+1)*d*d]
			for i := range d {
				for j := range i {
					if c[i*d+j] != c[j*d+i] {
						t.Fatalf("%v region %d: c[%d][%d] = %v, c[%d][%d] = %v", m, k, i, j, c[i*d+j], j, i, c[j*d+i])
					}
				}
			}
		}
		if _, err := spd.NewSetFromData(d, dst); err != nil {
			t.Errorf("%v: spd.NewSetFromData: %v", m, err)
		}
	}
}

// TestShapeErrors: inconsistent sizes and bad regions are errors, not
// panics.
func TestShapeErrors(t *testing.T) {
	const w, h = 8, 6
	planes := [][]float64{make([]float64, w*h), make([]float64, w*h)}
	e := mustExtractor(t, 2, covariance.Options{})
	whole := []covariance.Region{covariance.Whole(w, h)}
	for _, tc := range []struct {
		name    string
		dst     []float64
		planes  [][]float64
		w, h    int
		regions []covariance.Region
		want    error
	}{
		{"short dst", make([]float64, 3), planes, w, h, whole, covariance.ErrShape},
		{"long dst", make([]float64, 5), planes, w, h, whole, covariance.ErrShape},
		{"plane count", make([]float64, 4), planes[:1], w, h, whole, covariance.ErrShape},
		{"no planes", make([]float64, 4), nil, w, h, whole, covariance.ErrShape},
		{"plane length", make([]float64, 4), planes, w, h + 1, whole, covariance.ErrShape},
		{"zero size", make([]float64, 4), [][]float64{{}, {}}, 0, 0, nil, covariance.ErrShape},
		{"outside", make([]float64, 4), planes, w, h, []covariance.Region{{X: 1, W: w, H: 1}}, covariance.ErrRegion},
		{"one pixel", make([]float64, 4), planes, w, h, []covariance.Region{{W: 1, H: 1}}, covariance.ErrRegion},
		{"negative", make([]float64, 4), planes, w, h, []covariance.Region{{X: -1, W: 2, H: 2}}, covariance.ErrRegion},
	} {
		if err := e.Compute(tc.dst, tc.planes, tc.w, tc.h, tc.regions); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := covariance.Of(make([]float64, 4), planes, w, h, covariance.Region{W: 9, H: 1}); !errors.Is(err, covariance.ErrRegion) {
		t.Errorf("Of outside: %v", err)
	}
	if err := covariance.Of(make([]float64, 3), planes, w, h, covariance.Whole(w, h)); !errors.Is(err, covariance.ErrShape) {
		t.Errorf("Of short dst: %v", err)
	}
}

// TestNoAllocs: Compute allocates nothing once its buffers have grown.
func TestNoAllocs(t *testing.T) {
	const w, h, d = 64, 64, 5
	rng := rand.New(rand.NewPCG(14, 15))
	planes := randomPlanes(rng, d, w, h, []float64{0}, []float64{1})
	regions, err := covariance.Grid(w, h, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, len(regions)*d*d)
	for _, m := range methods {
		for _, o := range []covariance.Options{
			{Method: m},
			{Method: m, Estimator: covariance.LedoitWolf, Normalize: covariance.NormDet},
			{Method: m, Estimator: covariance.OAS, Normalize: covariance.NormCorr},
		} {
			e := mustExtractor(t, d, o)
			if a := testing.AllocsPerRun(10, func() {
				if err := e.Compute(dst, planes, w, h, regions); err != nil {
					t.Fatal(err)
				}
			}); a != 0 {
				t.Errorf("%+v: %v allocations per image", o, a)
			}
		}
	}
	l, err := covariance.ParseLayout("blocks:10:8")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]covariance.Region, 0, 10)
	if a := testing.AllocsPerRun(10, func() {
		if _, err := l.AppendRegions(buf[:0], w, h, 1); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("AppendRegions: %v allocations", a)
	}
}

// TestAutoMethod: Auto gives the same descriptors whichever path it picks,
// on layouts below and above the area ratio.
func TestAutoMethod(t *testing.T) {
	const w, h, d = 64, 64, 3
	rng := rand.New(rand.NewPCG(16, 17))
	planes := randomPlanes(rng, d, w, h, []float64{1e3}, []float64{1})
	for _, regions := range [][]covariance.Region{
		{covariance.Whole(w, h)},
		randomRegions(rng, 40, w, h, 32), // total area > 5·w·h
	} {
		want := make([]float64, len(regions)*d*d)
		got := make([]float64, len(regions)*d*d)
		if err := mustExtractor(t, d, covariance.Options{Method: covariance.Direct}).Compute(want, planes, w, h, regions); err != nil {
			t.Fatal(err)
		}
		if err := mustExtractor(t, d, covariance.Options{}).Compute(got, planes, w, h, regions); err != nil {
			t.Fatal(err)
		}
		if e := relFrob(got, want); e > 1e-10 {
			t.Errorf("%d regions: auto differs from direct by %.3g", len(regions), e)
		}
	}
	// The threshold is observable through non-finite features outside
	// the regions, which only the integral images read: up to 5 times the
	// image area Auto uses the direct path, beyond it integral images.
	planes[0][w*h-1] = math.NaN()
	for _, tc := range []struct {
		copies   int
		integral bool
	}{{20, false}, {21, true}} {
		regions := slices.Repeat([]covariance.Region{{W: 32, H: 32}}, tc.copies) // 20·1024 = 5·4096 < 21·1024
		err := mustExtractor(t, d, covariance.Options{}).Compute(make([]float64, len(regions)*d*d), planes, w, h, regions)
		if (err != nil) != tc.integral {
			t.Errorf("%d regions of 32x32 in 64x64: error %v, want integral images = %v", tc.copies, err, tc.integral)
		}
	}
}

// TestDiagRidgeEquivariance checks that covariance.DiagRidge commutes with rescaling
// the features (the trace ridge does not), against spd.AddDiagRidge.
func TestDiagRidgeEquivariance(t *testing.T) {
	const w, h, d = 16, 12, 3
	planes := make([][]float64, d)
	scaled := make([][]float64, d)
	scale := []float64{1, 100, 1e-3}
	for k := range planes {
		planes[k] = make([]float64, w*h)
		scaled[k] = make([]float64, w*h)
		for i := range planes[k] {
			planes[k][i] = math.Sin(float64(i*(k+2))) + 0.1*float64(k*i%7)
			scaled[k][i] = scale[k] * planes[k][i]
		}
	}
	reg := covariance.Regularization{Kind: covariance.DiagRidge, Eps: 0.1}
	e, err := covariance.NewExtractor(d, covariance.Options{Reg: reg})
	if err != nil {
		t.Fatal(err)
	}
	a := make([]float64, d*d)
	b := make([]float64, d*d)
	if err := e.Compute(a, planes, w, h, []covariance.Region{covariance.Whole(w, h)}); err != nil {
		t.Fatal(err)
	}
	if err := e.Compute(b, scaled, w, h, []covariance.Region{covariance.Whole(w, h)}); err != nil {
		t.Fatal(err)
	}
	raw := make([]float64, d*d)
	if err := covariance.Of(raw, planes, w, h, covariance.Whole(w, h)); err != nil {
		t.Fatal(err)
	}
	for i := range d {
		for j := range d {
			if got, want := b[i*d+j], scale[i]*scale[j]*a[i*d+j]; math.Abs(got-want) > 1e-12*math.Abs(want)+1e-300 {
				t.Fatalf("[%d][%d]: scaled %g, want %g", i, j, got, want)
			}
			want := raw[i*d+j]
			if i == j {
				want *= 1.1
			}
			if math.Abs(a[i*d+j]-want) > 1e-12*math.Abs(want) {
				t.Fatalf("[%d][%d] = %g, want raw·(1+eps) on the diagonal %g", i, j, a[i*d+j], want)
			}
		}
	}
	if k, err := covariance.ParseRegKind("diag-ridge"); err != nil || k != covariance.DiagRidge {
		t.Errorf("covariance.ParseRegKind: %v, %v", k, err)
	}
	if _, err := covariance.ParseRegKind("diag"); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestParseRegularization(t *testing.T) {
	for _, r := range []covariance.Regularization{
		{Kind: covariance.None}, {Kind: covariance.TraceRidge, Eps: 1e-4}, {Kind: covariance.DiagRidge, Eps: 0.1}, {Kind: covariance.Ridge, Eps: 2.5e-7},
	} {
		got, err := covariance.ParseRegularization(r.String())
		if err != nil || got != r {
			t.Errorf("ParseRegularization(%q) = %v, %v; want %v", r.String(), got, err, r)
		}
	}
	if got, err := covariance.ParseRegularization(covariance.Regularization{}.String()); err != nil || got != covariance.DefaultRegularization() {
		t.Errorf("zero value round trip: %v, %v", got, err)
	}
	for _, s := range []string{"", "trace-ridge", "trace-ridge:", "trace-ridge:0", "ridge:-1", "ridge:NaN", "ridge:Inf", "none:0.1", "wide:0.1", ":0.1"} {
		if r, err := covariance.ParseRegularization(s); err == nil {
			t.Errorf("ParseRegularization(%q) = %v, want an error", s, r)
		}
	}
}

func TestNewRegularization(t *testing.T) {
	for _, tc := range []struct {
		kind string
		eps  float64
		want covariance.Regularization
		err  string
	}{
		{"", 1e-4, covariance.Regularization{Kind: covariance.TraceRidge, Eps: 1e-4}, ""},
		{"diag-ridge", 0.1, covariance.Regularization{Kind: covariance.DiagRidge, Eps: 0.1}, ""},
		{"ridge", 0, covariance.Regularization{Kind: covariance.None}, ""},
		{"none", 0, covariance.Regularization{Kind: covariance.None}, ""},
		{"none", 0.1, covariance.Regularization{}, "give strength 0"},
		{"diag", 0.1, covariance.Regularization{}, `unknown regularisation kind "diag"`},
		{"ridge", -1, covariance.Regularization{}, "ridge strength -1"},
		{"ridge", math.Inf(1), covariance.Regularization{}, "ridge strength +Inf"},
	} {
		got, err := covariance.NewRegularization(tc.kind, tc.eps)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NewRegularization(%q, %v) error %v, want %q", tc.kind, tc.eps, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NewRegularization(%q, %v) = %v, %v; want %v", tc.kind, tc.eps, got, err, tc.want)
		}
	}
}
