package describe

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/shareddata"
	"github.com/covpipe/covpipe/store"
)

// miniMars opens the mini-mars dataset, or skips when it is absent.
func miniMars(tb testing.TB) *datasets.List {
	tb.Helper()
	l, err := datasets.Open("mars:" + shareddata.Dir(tb, "mini-mars"))
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// reidOptions are those of the re-identification protocol: the 17 reid
// features of pedestrians resized to 32 wide by 64 high.
func reidOptions() Options {
	return Options{Features: fset("reid"), Width: 32, Height: 64}
}

// TestMiniMars describes two identities of mini-mars as the
// re-identification protocol does (32×64, reid features), checks a
// descriptor against the naive covariance, and that two shards merge into
// the same bytes.
func TestMiniMars(t *testing.T) {
	all := miniMars(t)
	labels := all.Labels()[:2]
	list := all.Filter(func(it datasets.Item) bool { return it.Label == labels[0] || it.Label == labels[1] })
	o := reidOptions()
	inputs := []*datasets.List{list}
	whole := describeTo(t, inputs, o)
	got, err := store.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta.Counts.Descriptors != list.Len() || got.Meta.Dim != 17 {
		t.Fatalf("counts %+v, dim %d", got.Meta.Counts, got.Meta.Dim)
	}
	i := list.Len() - 1
	img, err := imageio.Load(list.Items[i].Path, imageio.Options{Color: true, Width: 32, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := features.Parse("reid")
	fm, err := set.Compute(img)
	if err != nil {
		t.Fatal(err)
	}
	checkNaive(t, list.Items[i].Rel, got.Data[i*289:(i+1)*289], fm.Planes, 32, got.Rows[i].Region, got.Meta.Ridge)
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := store.Merge(context.Background(), merged, shardRun(t, inputs, o, 2)); err != nil {
		t.Fatal(err)
	}
	if d := foldertest.Same(t, whole, merged); d != "" {
		t.Errorf("merged shards differ from the whole run: %s", d)
	}
}

// TestShrinkageRealData: where the sample covariance is singular or
// nearly so, the shrinkage estimators give well-conditioned descriptors
// without a ridge (Kind None). A whole 32×32 FERET face with the 43 face
// features has n = 1024 > d pixels, and its SCM passes a Cholesky
// factorisation, but the 40 Gabor magnitudes are so nearly collinear that
// its condition number is beyond 1e9; a 4×4 block of a pedestrian with
// the 17 reid features has n = 16 < d pixels, and its SCM is singular
// (of rank at most 15: rounding may leave its smallest eigenvalues just
// above 0, or fail the factorisation).
func TestShrinkageRealData(t *testing.T) {
	none := covariance.Regularization{Kind: covariance.None}
	feret := filepath.Join(shareddata.Dir(t, "feret-b-32"), "00001ba.png")
	face, err := imageio.Load(feret, imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mars := miniMars(t).Items[0].Path
	walker, err := imageio.Load(mars, imageio.Options{Color: true, Width: 32, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		features string
		img      *imageio.Image
		region   covariance.Region
	}{
		{"face 32x32, d = 43", "face", face, covariance.Whole(32, 32)},
		{"pedestrian 4x4, d = 17", "reid", walker, covariance.Region{X: 12, Y: 20, W: 4, H: 4}},
	} {
		for _, est := range []covariance.Estimator{covariance.SCM, covariance.LedoitWolf, covariance.OAS} {
			e, err := NewExtractor(Options{Features: fset(tc.features), Reg: none, Estimator: est})
			if err != nil {
				t.Fatal(err)
			}
			c, err := e.Regions(tc.img, []covariance.Region{tc.region})
			if est == covariance.SCM && errors.Is(err, covariance.ErrNotSPD) {
				t.Logf("%s, scm: %v", tc.name, err)
				continue
			}
			if err != nil {
				t.Fatalf("%s, %v: %v", tc.name, est, err)
			}
			var eig mat.EigenSym
			if !eig.Factorize(mat.NewSymDense(e.Dim(), c), false) {
				t.Fatalf("%s, %v: no eigenvalues", tc.name, est)
			}
			v := eig.Values(nil)
			cond := v[len(v)-1] / v[0]
			t.Logf("%s, %v: eigenvalues %.3g to %.3g, condition %.3g", tc.name, est, v[0], v[len(v)-1], cond)
			if want := est != covariance.SCM; (v[0] > 0 && cond < 1e9) != want {
				t.Errorf("%s, %v: condition number %.3g (smallest eigenvalue %.3g), want well conditioned = %v", tc.name, est, cond, v[0], want)
			}
		}
	}
}
