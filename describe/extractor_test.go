package describe

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// TestCollect checks that Collect returns what store.Read returns of the folder
// Describe writes, for single and several inputs, shards, failures and
// each layout, and that it writes no file, not even a temporary one.
func TestCollect(t *testing.T) {
	src := writeImages(t, testImages, 21)
	foldertest.WriteFile(t, filepath.Join(src, "b", "0bad.png"), []byte("\x89PNG\r\n\x1a\n truncated"))
	withBad := openFolders(t, src)
	good := withBad.Filter(func(it datasets.Item) bool { return !strings.HasSuffix(it.Rel, "0bad.png") })
	other := openFolders(t, writeImages(t, testImages[:3], 22))
	blocks := covariance.Layout{Kind: covariance.LayoutBlocks, N: 3, Side: 4}
	for _, tc := range []struct {
		name   string
		inputs []*datasets.List
		o      Options
	}{
		{"default", []*datasets.List{good}, Options{}},
		{"reid grid", []*datasets.List{good}, Options{Features: fset("reid"), Width: 8, Height: 6, Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2}, Workers: 3}},
		{"blocks, two inputs", []*datasets.List{good, other}, Options{Features: fset("I,x,y"), Regions: blocks, Seed: 3}},
		{"shard", []*datasets.List{good, other}, Options{Regions: blocks, Shard: store.Shard{Index: 1, Count: 3}}},
		{"skip bad", []*datasets.List{withBad}, Options{Features: fset("I,Ix"), SkipBad: true, Workers: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := store.Read(describeTo(t, tc.inputs, tc.o))
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			got, err := Collect(context.Background(), tc.inputs, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if got.Meta.Files != nil {
				t.Errorf("Collect's meta records files %v", got.Meta.Files)
			}
			want.Meta.Files = nil
			if !reflect.DeepEqual(got.Meta, want.Meta) {
				t.Errorf("meta %+v, want %+v", got.Meta, want.Meta)
			}
			if !reflect.DeepEqual(got.Rows, want.Rows) {
				t.Errorf("rows %+v, want %+v", got.Rows, want.Rows)
			}
			if !bitsEqual(got.Data, want.Data) {
				t.Error("data differ from the folder's")
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("Collect left %v in $TMPDIR", entries)
			}
		})
	}
}

// bitsEqual reports whether a and b hold the same float64 bits.
func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestCollectErrors checks that Collect fails as Describe does, naming
// the image.
func TestCollectErrors(t *testing.T) {
	src := writeImages(t, testImages[:2], 23)
	foldertest.WriteFile(t, filepath.Join(src, "a", "0bad.png"), []byte("not a png"))
	list := openFolders(t, src)
	if _, err := Collect(context.Background(), []*datasets.List{list}, Options{}); err == nil || !strings.Contains(err.Error(), "load "+filepath.Join(src, "a", "0bad.png")) {
		t.Errorf("error %v, want one naming the bad image", err)
	}
	if _, err := Collect(context.Background(), []*datasets.List{list}, Options{Workers: -1}); err == nil || !strings.Contains(err.Error(), "-1 workers") {
		t.Errorf("error %v, want one naming the worker count", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Collect(ctx, []*datasets.List{list}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestExtractorRegions checks that Regions on a loaded image gives, bit
// for bit, the descriptors that Describe writes for that image with the
// same layout, and the naive covariance.
func TestExtractorRegions(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages, 24))
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"texture whole", Options{}},
		{"reid grid resized", Options{Features: fset("reid"), Width: 12, Height: 8, Filter: imageio.Box, Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 3}}},
		{"blocks ridge", Options{Features: fset("I,x,y,Ix,Iy"), Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 4, Side: 5}, Seed: 8, Reg: covariance.Regularization{Kind: covariance.Ridge, Eps: 0.01}}},
		{"diag ridge", Options{Features: fset("I,x,y"), Reg: covariance.Regularization{Kind: covariance.DiagRidge, Eps: 0.1}}},
		{"lwf trace", Options{Features: fset("I,x,y,Ix,Iy"), Estimator: covariance.LedoitWolf, Normalize: covariance.NormTrace, Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2}}},
		{"oas corr no ridge", Options{Features: fset("reid"), Estimator: covariance.OAS, Normalize: covariance.NormCorr, Reg: covariance.Regularization{Kind: covariance.None}, Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 3, Side: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := store.Read(describeTo(t, []*datasets.List{list}, tc.o))
			if err != nil {
				t.Fatal(err)
			}
			e, err := NewExtractor(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			d := e.Dim()
			if d != out.Meta.Dim {
				t.Fatalf("Dim %d, meta.json %d", d, out.Meta.Dim)
			}
			set, load := loading(tc.o)
			i := 0
			for _, it := range list.Items {
				img, err := imageio.Load(it.Path, load)
				if err != nil {
					t.Fatal(err)
				}
				regions, err := tc.o.Regions.Regions(img.W, img.H, BlockSeed(tc.o.Seed, it.Rel))
				if err != nil {
					t.Fatal(err)
				}
				got, err := e.Regions(img, regions)
				if err != nil {
					t.Fatalf("%s: %v", it.Rel, err)
				}
				want := out.Data[i*d*d : (i+len(regions))*d*d]
				if !bitsEqual(got, want) {
					t.Errorf("%s: Regions differ from Describe's descriptors", it.Rel)
				}
				for k, r := range regions {
					if out.Rows[i+k].Region != r {
						t.Errorf("%s: region %d is %v, Describe's %v", it.Rel, k, r, out.Rows[i+k].Region)
					}
				}
				fm, err := set.Compute(img)
				if err != nil {
					t.Fatal(err)
				}
				if tc.o.Reg.Kind != covariance.DiagRidge && tc.o.Estimator == covariance.SCM && tc.o.Normalize == covariance.NormNone {
					checkNaive(t, it.Rel, got[:d*d], fm.Planes, img.W, regions[0], out.Meta.Ridge)
				}
				i += len(regions)
			}
			if i != len(out.Rows) {
				t.Errorf("%d descriptors by Regions, %d by Describe", i, len(out.Rows))
			}
		})
	}
}

// TestExtractorRegionsErrors checks the errors of Regions and that they
// leave the Extractor usable.
func TestExtractorRegionsErrors(t *testing.T) {
	e, err := NewExtractor(Options{Features: fset("I,x"), Reg: covariance.Regularization{Kind: covariance.None}})
	if err != nil {
		t.Fatal(err)
	}
	flat := &imageio.Image{W: 4, H: 3, Gray: make([]float64, 12)}
	noisy := &imageio.Image{W: 4, H: 3, Gray: []float64{0.1, 0.5, 0.2, 0.9, 0.3, 0.3, 0.7, 0.1, 0.4, 0.8, 0.6, 0.2}}
	nan := &imageio.Image{W: 4, H: 3, Gray: slices.Clone(noisy.Gray)}
	nan.Gray[5] = math.NaN()
	whole := []covariance.Region{covariance.Whole(4, 3)}
	for _, tc := range []struct {
		name    string
		img     *imageio.Image
		regions []covariance.Region
		want    string
		is      error
	}{
		{"nil", nil, whole, "nil image", nil},
		{"outside", noisy, []covariance.Region{{X: 1, W: 4, H: 3}}, "covariance of the 4x3 image: region 0 (4x3+1+0)", covariance.ErrRegion},
		{"singular", flat, []covariance.Region{whole[0], {W: 2, H: 2}}, "covariance of the 4x3 image: region 0 (4x3+0+0)", spd.ErrNotSPD},
		{"nan", nan, whole, "features of the 4x3 image", nil},
	} {
		_, err := e.Regions(tc.img, tc.regions)
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%s: error %v, want one containing %q (wrapping %v)", tc.name, err, tc.want, tc.is)
		}
	}
	got, err := e.Regions(noisy, whole)
	if err != nil || len(got) != 4 {
		t.Fatalf("after errors: %v, %v", got, err)
	}
	fm, _ := fset("I,x").Compute(noisy)
	truth := naiveCov(fm.Planes, 4, whole[0], store.Ridge{Kind: "none"})
	for k, v := range got {
		if math.Abs(v-truth[k]) > 1e-12 {
			t.Errorf("[%d] = %v, want %v", k, v, truth[k])
		}
	}
	if err := e.RegionsTo(make([]float64, 3), noisy, whole); !errors.Is(err, covariance.ErrShape) {
		t.Errorf("RegionsTo into a short dst: %v, want ErrShape", err)
	}
}

// TestExtractorRegionsAllocs checks that RegionsTo allocates nothing once
// it has seen an image of the size.
func TestExtractorRegionsAllocs(t *testing.T) {
	e, err := NewExtractor(Options{Features: fset("face")})
	if err != nil {
		t.Fatal(err)
	}
	img := &imageio.Image{W: 16, H: 16, Gray: make([]float64, 256)}
	for i := range img.Gray {
		img.Gray[i] = float64(i*(i+3)%251) / 255
	}
	regions, _ := covariance.Grid(16, 16, 2, 2)
	dst := make([]float64, len(regions)*e.Dim()*e.Dim())
	if err := e.RegionsTo(dst, img, regions); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(5, func() { e.RegionsTo(dst, img, regions) }); n != 0 {
		t.Errorf("RegionsTo allocates %v times per image", n)
	}
}

// recorder is a Sink that records the calls it gets and fails on the
// call named fail.
type recorder struct {
	calls []string
	fail  string
}

func (r *recorder) call(name string) error {
	r.calls = append(r.calls, name)
	if name == r.fail {
		return errors.New("sink failed at " + name)
	}
	return nil
}

func (r *recorder) Begin(m *store.Meta) error { return r.call("begin") }
func (r *recorder) Descriptors(input int, it *datasets.Item, regions []covariance.Region, data []float64) error {
	return r.call("image " + it.Rel)
}
func (r *recorder) Failed(input int, it *datasets.Item, err error) error {
	return r.call("failed " + it.Rel)
}
func (r *recorder) Commit(m *store.Meta) error { return r.call("commit") }
func (r *recorder) Abort()                     { r.calls = append(r.calls, "abort") }

// TestRunSink checks the calls a Sink gets, in order, and that Run
// aborts it and returns its error when a call fails, or when an image
// fails without SkipBad.
func TestRunSink(t *testing.T) {
	src := writeImages(t, testImages[:3], 25)
	foldertest.WriteFile(t, filepath.Join(src, "a", "2bad.png"), []byte("not a png"))
	list := openFolders(t, src)
	run := func(o Options, fail string) ([]string, error) {
		e, err := NewExtractor(o)
		if err != nil {
			t.Fatal(err)
		}
		r := &recorder{fail: fail}
		_, err = e.Run(context.Background(), []*datasets.List{list}, r)
		return r.calls, err
	}
	all := []string{"begin", "image a/1.png", "image a/2.pgm", "failed a/2bad.png", "image a/sub/3.png", "commit"}
	for _, tc := range []struct {
		name string
		o    Options
		fail string
		want []string
		err  string
	}{
		{"skip bad", Options{SkipBad: true, Workers: 2}, "", all, ""},
		{"begin fails", Options{SkipBad: true}, "begin", []string{"begin", "abort"}, "sink failed at begin"},
		{"image fails", Options{SkipBad: true}, "image a/2.pgm", append(slices.Clone(all[:3]), "abort"), "sink failed at image a/2.pgm"},
		{"commit fails", Options{SkipBad: true}, "commit", append(slices.Clone(all), "abort"), "sink failed at commit"},
		{"bad image", Options{Workers: 1}, "", append(slices.Clone(all[:3]), "abort"), "load " + filepath.Join(src, "a", "2bad.png")},
	} {
		calls, err := run(tc.o, tc.fail)
		if !slices.Equal(calls, tc.want) {
			t.Errorf("%s: calls %q, want %q", tc.name, calls, tc.want)
		}
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestCollectVectors checks the vectors of Options.Vectors against the
// images' intensities read independently, sampled every Step pixels, and
// the errors of vectors where they cannot be made.
func TestCollectVectors(t *testing.T) {
	dir := writeImages(t, testImages, 3)
	list, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Features: fset("texture"), Width: 10, Height: 8, Vectors: VectorSpec{Features: fset("I,Ix"), Step: 2}}
	out, err := Collect(context.Background(), []*datasets.List{list}, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.VectorLen != 2*5*4 || len(out.Vectors) != len(out.Rows)*out.VectorLen {
		t.Fatalf("%d vectors of %d values for %d rows", len(out.Vectors)/max(1, out.VectorLen), out.VectorLen, len(out.Rows))
	}
	for i, r := range out.Rows {
		img, err := imageio.Load(filepath.Join(dir, r.Path), imageio.Options{Width: 10, Height: 8})
		if err != nil {
			t.Fatal(err)
		}
		v := out.Vectors[i*out.VectorLen : (i+1)*out.VectorLen]
		k := 0
		for y := 0; y < 8; y += 2 {
			for x := 0; x < 10; x += 2 {
				if v[k] != img.Gray[y*10+x] {
					t.Fatalf("%s: vector[%d] = %v, intensity (%d, %d) = %v", r.Path, k, v[k], x, y, img.Gray[y*10+x])
				}
				k++
			}
		}
	}
	// Descriptors are the same with or without vectors.
	plain, err := Collect(context.Background(), []*datasets.List{list}, Options{Features: fset("texture"), Width: 10, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain.Data {
		if plain.Data[i] != out.Data[i] {
			t.Fatalf("descriptor value %d differs with vectors", i)
		}
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Vectors: VectorSpec{Features: fset("I"), Step: 1}}, "different sizes"},
		{Options{Width: 8, Height: 8, Vectors: VectorSpec{Features: fset("I")}}, "vector step 0"},
		{Options{Width: 8, Height: 8, Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2}, Vectors: VectorSpec{Features: fset("I"), Step: 1}}, "whole-image layout"},
	} {
		if _, err := Collect(context.Background(), []*datasets.List{list}, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o.Vectors, err, tc.want)
		}
	}
	// Describe writes them into vectors.npy, recorded in meta.json, and
	// store.Read gives back what Collect gives.
	dirOut := describeTo(t, []*datasets.List{list}, o)
	read, err := store.Read(dirOut)
	if err != nil {
		t.Fatal(err)
	}
	if read.Meta.Vectors == nil || *read.Meta.Vectors != (store.Vectors{FeatureSpec: "I,Ix", Step: 2}) || out.Meta.Vectors == nil || *out.Meta.Vectors != *read.Meta.Vectors {
		t.Errorf("meta.json vectors %+v, Collect's %+v", read.Meta.Vectors, out.Meta.Vectors)
	}
	read.Meta.Files, read.Dir = nil, ""
	if !reflect.DeepEqual(read, out) {
		t.Errorf("store.Read of Describe's folder differs from Collect's output")
	}
	if _, err := Describe(context.Background(), []*datasets.List{list}, t.TempDir(), Options{Vectors: VectorSpec{Features: fset("I"), Step: 1}}); err == nil || !strings.Contains(err.Error(), "different sizes") {
		t.Errorf("Describe with vectors of images of different sizes: %v", err)
	}
	// A run without vectors into the folder removes its vectors.npy.
	if _, err := Describe(context.Background(), []*datasets.List{list}, dirOut, Options{Features: fset("texture"), Width: 10, Height: 8}); err != nil {
		t.Fatal(err)
	}
	if d := foldertest.Same(t, dirOut, describeTo(t, []*datasets.List{list}, Options{Features: fset("texture"), Width: 10, Height: 8})); d != "" {
		t.Errorf("a run without vectors over one with them: %s", d)
	}
}

// TestCollectInto checks that CollectInto returns what Collect returns
// and commits the folder Describe writes; and that when the folder
// cannot be written (removed once created), it reports the error once and still returns the output.
func TestCollectInto(t *testing.T) {
	inputs := []*datasets.List{openFolders(t, writeImages(t, testImages, 23))}
	o := Options{Features: fset("I,Ix"), SkipBad: true}
	want, err := Collect(context.Background(), inputs, o)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := NewExtractor(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		remove bool // the folder, once created
	}{
		{"writable", false},
		{"removed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			f, err := store.CreateFolder(context.Background(), dir, store.Format)
			if err != nil {
				t.Fatal(err)
			}
			if tc.remove {
				os.RemoveAll(dir)
			}
			var failures []error
			got, err := ex.CollectInto(context.Background(), inputs, f, func(err error) { failures = append(failures, err) })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Rows, want.Rows) || !bitsEqual(got.Data, want.Data) || !reflect.DeepEqual(got.Meta, want.Meta) {
				t.Error("the output differs from Collect's")
			}
			if tc.remove {
				if len(failures) != 1 || !strings.Contains(failures[0].Error(), dir) {
					t.Errorf("failures %v, want one naming %s", failures, dir)
				}
				return
			}
			if len(failures) != 0 {
				t.Errorf("failures %v", failures)
			}
			if read, err := store.Read(dir); err != nil || !bitsEqual(read.Data, want.Data) {
				t.Errorf("the folder: %v", err)
			}
		})
	}
}
