package describe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/covtest"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// naiveCov is the unbiased covariance 1/(n−1) Σ (z−μ)(z−μ)ᵀ of the
// features over region r, by the textbook two-pass formula, plus the
// ridge of reg: the independent truth for the descriptors.
func naiveCov(planes [][]float64, w int, r covariance.Region, reg store.Ridge) []float64 {
	d := len(planes)
	c := covtest.Naive(planes, w, r)
	var ridge float64
	switch reg.Kind {
	case "trace-ridge":
		for i := range d {
			ridge += c[i*d+i]
		}
		ridge *= reg.Eps / float64(d)
	case "ridge":
		ridge = reg.Eps
	}
	for i := range d {
		c[i*d+i] += ridge
	}
	return c
}

// checkNaive fails t at the first entry of the d×d descriptor got (d
// features) that differs from naiveCov(planes, w, r, reg) by more than
// 1e-12 relative; what names the descriptor.
func checkNaive(t testing.TB, what string, got []float64, planes [][]float64, w int, r covariance.Region, reg store.Ridge) {
	t.Helper()
	d := len(planes)
	if len(got) != d*d {
		t.Fatalf("%s: %d values, want %d×%d", what, len(got), d, d)
	}
	truth := naiveCov(planes, w, r, reg)
	for k, v := range got {
		if math.Abs(v-truth[k]) > 1e-12*(1+math.Abs(truth[k])) {
			t.Fatalf("%s: [%d][%d] = %v, want %v", what, k/d, k%d, v, truth[k])
		}
	}
}

// TestDescribeValues checks the descriptors against the naive covariance
// of independently computed features, for each region layout, and the
// manifest and meta.json that go with them.
func TestDescribeValues(t *testing.T) {
	src := writeImages(t, testImages, 1)
	list := openFolders(t, src)
	for _, tc := range []struct {
		name string
		o    Options
		per  int // regions per image
	}{
		{"whole", Options{Features: fset("I,x,y,Ix,Iyy")}, 1},
		{"whole-reid-resize", Options{Features: fset("reid"), Width: 8, Height: 10, Filter: imageio.Box, Reg: covariance.Regularization{Kind: covariance.Ridge, Eps: 0.01}}, 1},
		{"grid", Options{Features: fset("texture"), Width: 12, Height: 8, Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 3}}, 6},
		{"blocks", Options{Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 3, Side: 5}, Seed: 42}, 3},
		{"none", Options{Features: fset("I,x"), Reg: covariance.Regularization{Kind: covariance.None}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := describeTo(t, []*datasets.List{list}, tc.o)
			set, load := loading(tc.o)
			d := set.Dim()
			n := len(testImages) * tc.per
			shape, data := foldertest.ReadNPY(t, filepath.Join(out, store.DescriptorsFile))
			if !slices.Equal(shape, []int{n, d, d}) || len(data) != n*d*d {
				t.Fatalf("shape %v with %d values, want (%d, %d, %d)", shape, len(data), n, d, d)
			}
			got, err := store.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Data, data) {
				t.Error("store.Read's data differ from npyio's")
			}
			m := got.Meta
			grey := 0 // the colour features of the 3 grey images repeat one plane
			if set.NeedsColor() {
				grey = 3
			}
			if m.Dim != d || !slices.Equal(m.Features, set.Names()) || m.Regions != tc.o.Regions.String() || m.Seed != tc.o.Seed ||
				m.Counts != (store.Counts{Images: 7, Described: 7, Descriptors: n, Grey: grey}) || len(m.Inputs) != 1 || m.Inputs[0] != (store.Input{Root: src, Images: 7}) {
				t.Errorf("meta %+v", m)
			}
			if len(got.Rows) != n {
				t.Fatalf("%d rows, want %d", len(got.Rows), n)
			}
			for i, r := range got.Rows {
				spec := testImages[i/tc.per]
				if r.Index != i || r.Path != spec.rel || r.Label != strings.Split(spec.rel, "/")[0] || r.Input != 0 {
					t.Errorf("row %d: %+v, want path %s", i, r, spec.rel)
				}
				img, err := imageio.Load(filepath.Join(src, spec.rel), load)
				if err != nil {
					t.Fatal(err)
				}
				var want []covariance.Region
				switch tc.name {
				case "grid":
					want, _ = covariance.Grid(12, 8, 2, 3)
				case "blocks":
					want, _ = covariance.RandomBlocks(img.W, img.H, 3, 5, BlockSeed(42, spec.rel))
				default:
					want = []covariance.Region{covariance.Whole(img.W, img.H)}
				}
				if r.Region != want[i%tc.per] {
					t.Errorf("row %d: region %v, want %v", i, r.Region, want[i%tc.per])
				}
				fm, err := set.Compute(img)
				if err != nil {
					t.Fatal(err)
				}
				checkNaive(t, fmt.Sprintf("descriptor %d", i), data[i*d*d:(i+1)*d*d], fm.Planes, img.W, r.Region, m.Ridge)
			}
			if _, err := spd.NewSetFromData(d, got.Data); err != nil {
				t.Errorf("descriptors are not a valid SPD set: %v", err)
			}
			if _, err := os.Stat(filepath.Join(out, store.FailuresFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("failures.csv without SkipBad: %v", err)
			}
		})
	}
}

// TestMetaJSON checks the fields of meta.json as text, as other tools
// read them.
func TestMetaJSON(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages, 1))
	out := describeTo(t, []*datasets.List{list}, Options{Features: fset("reid"), Width: 8, Height: 16, Filter: imageio.Lanczos3, Seed: 5, SkipBad: true})
	b, err := os.ReadFile(filepath.Join(out, store.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"format":       store.Format,
		"feature_spec": "x,y,R,G,B,Rx,Ry,Gx,Gy,Bx,By,Rxx,Ryy,Gxx,Gyy,Bxx,Byy",
		"features":     []any{"x", "y", "R", "G", "B", "Rx", "Ry", "Gx", "Gy", "Bx", "By", "Rxx", "Ryy", "Gxx", "Gyy", "Bxx", "Byy"},
		"dim":          17.0,
		"ridge":        map[string]any{"kind": "trace-ridge", "eps": 1e-4},
		"resize":       map[string]any{"width": 8.0, "height": 16.0},
		"filter":       "lanczos3",
		"jpeg_scale":   "auto",
		"regions":      "whole",
		"seed":         5.0,
		"skip_bad":     true,
		"inputs":       []any{map[string]any{"root": list.Root, "images": 7.0, "skipped": map[string]any{"non_images": 0.0, "empty_folders": 0.0}}},
		"counts":       map[string]any{"images": 7.0, "described": 7.0, "failed": 0.0, "descriptors": 7.0, "grey": 3.0},
	}
	for k, v := range want {
		if g, _ := json.Marshal(m[k]); string(g) != mustJSON(v) {
			t.Errorf("meta.json %s = %s, want %s", k, g, mustJSON(v))
		}
	}
	for _, k := range []string{"covpipe_version", "items_sha256"} {
		if s, _ := m[k].(string); s == "" {
			t.Errorf("meta.json lacks %s", k)
		}
	}
	var files []string
	for _, f := range m["files"].([]any) {
		f := f.(map[string]any)
		st, err := os.Stat(filepath.Join(out, f["name"].(string)))
		if err != nil || float64(st.Size()) != f["size"] || len(f["sha256"].(string)) != 64 {
			t.Errorf("meta.json file record %v: %v", f, err)
		}
		files = append(files, f["name"].(string))
	}
	if !slices.Equal(files, []string{store.DescriptorsFile, store.ManifestFile, store.FailuresFile}) {
		t.Errorf("meta.json records files %v", files)
	}
	for _, k := range []string{"shard", "workers", "seconds", "time"} {
		if _, ok := m[k]; ok {
			t.Errorf("meta.json has %s", k)
		}
	}
	if len(m) != len(want)+3 {
		t.Errorf("meta.json has %d fields: %s", len(m), b)
	}
	// The estimator and the normalisation appear only when not the
	// defaults.
	other := describeTo(t, []*datasets.List{list}, Options{Features: fset("I,x,y"), Estimator: covariance.OAS, Normalize: covariance.NormDet})
	got, err := store.ReadMeta(other)
	if err != nil {
		t.Fatal(err)
	}
	if got.Estimator != "oas" || got.Normalize != "det" {
		t.Errorf("meta.json of oas and det: estimator %q, normalize %q", got.Estimator, got.Normalize)
	}
	for _, k := range []string{"estimator", "normalize"} {
		if _, ok := m[k]; ok {
			t.Errorf("meta.json with the default options has %s", k)
		}
	}
	if !strings.HasSuffix(string(b), "}\n") {
		t.Error("meta.json does not end with a newline")
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestDeterministic checks that outputs are byte-identical whatever the
// worker count, and when a folder is described again.
func TestDeterministic(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages, 2))
	o := Options{Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 4, Side: 6}, Seed: 9, Workers: 1, SkipBad: true}
	ref := describeTo(t, []*datasets.List{list}, o)
	for _, w := range []int{2, 3, 16, 0} {
		o.Workers = w
		out := describeTo(t, []*datasets.List{list}, o)
		if d := foldertest.Same(t, ref, out); d != "" {
			t.Errorf("workers %d: %s", w, d)
		}
	}
	before := foldertest.Files(t, ref)
	if _, err := Describe(context.Background(), []*datasets.List{list}, ref, o); err != nil {
		t.Fatal(err)
	}
	if d := foldertest.Diff(before, foldertest.Files(t, ref)); d != "" {
		t.Errorf("second run changed the output: %s", d)
	}
	o.Seed = 10
	other := describeTo(t, []*datasets.List{list}, o)
	a, _ := os.ReadFile(filepath.Join(ref, store.ManifestFile))
	b, _ := os.ReadFile(filepath.Join(other, store.ManifestFile))
	if string(a) == string(b) {
		t.Error("another seed gave the same blocks")
	}
}

// TestBadImage checks that a corrupt or singular image fails the run with
// an error naming it (and its region), leaving no file behind and a
// previous output untouched; and that SkipBad lists it and goes on.
func TestBadImage(t *testing.T) {
	src := writeImages(t, testImages, 3)
	foldertest.WriteFile(t, filepath.Join(src, "b", "0bad.png"), []byte("\x89PNG\r\n\x1a\n truncated"))
	imagetest.Write(t, filepath.Join(src, "c,1", "0flat.png"), flat(8, 8))
	list := openFolders(t, src)
	ctx := context.Background()

	for _, tc := range []struct {
		o    Options
		want []string
	}{
		{Options{}, []string{"load " + filepath.Join(src, "b", "0bad.png")}},
		{Options{Features: fset("I,x"), Reg: covariance.Regularization{Kind: covariance.None}},
			[]string{"load " + filepath.Join(src, "b", "0bad.png")}},
	} {
		out := filepath.Join(t.TempDir(), "out")
		_, err := Describe(ctx, []*datasets.List{list}, out, tc.o)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("error %v, want one containing %q", err, w)
			}
		}
		var ie *ImageError
		if !errors.As(err, &ie) || ie.Path != filepath.Join(src, "b", "0bad.png") {
			t.Errorf("error %v is not an ImageError naming the image", err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("failed run left its output folder: %v", err)
		}
	}

	// A grid that does not divide an image: the error suggests a size it
	// divides and the remainder policies.
	grid := Options{Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 3, Cols: 3}}
	_, err := Collect(ctx, []*datasets.List{openFolders(t, writeImages(t, testImages[:1], 3))}, grid)
	if err == nil || !strings.Contains(err.Error(), "does not divide the 16x12 image") ||
		!strings.HasSuffix(err.Error(), "; resize the images to a size the grid divides, such as 15x12 (--resize 15x12, data.resize: 15x12, Options.Width and Height), or give the grid a remainder policy: grid:3x3:crop (equal cells, the remainder cropped) or grid:3x3:spread (cells differing by a pixel at most)") {
		t.Errorf("grid 3x3 of a 16x12 image: %v", err)
	}
	// With a remainder policy the same image is described, and its
	// regions are the policy's.
	for _, r := range []covariance.Remainder{covariance.RemainderCrop, covariance.RemainderSpread} {
		grid.Regions.Remainder = r
		set, err := Collect(ctx, []*datasets.List{openFolders(t, writeImages(t, testImages[:1], 3))}, grid)
		if err != nil {
			t.Fatalf("%s: %v", grid.Regions, err)
		}
		want, _ := grid.Regions.Regions(16, 12, 0)
		var got []covariance.Region
		for _, row := range set.Rows {
			got = append(got, row.Region)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s of a 16x12 image: regions %v, want %v", grid.Regions, got, want)
		}
	}

	// Without the corrupt file, the flat image is singular without a ridge:
	// the error names it and its region.
	noCorrupt := list.Filter(func(it datasets.Item) bool { return !strings.HasSuffix(it.Rel, "0bad.png") })
	none := Options{Features: fset("I,x"), Reg: covariance.Regularization{Kind: covariance.None}, Workers: 3}
	prev := describeTo(t, []*datasets.List{openFolders(t, writeImages(t, testImages, 3))}, none)
	before := foldertest.Files(t, prev)
	_, err = Describe(ctx, []*datasets.List{noCorrupt}, prev, none)
	flat := filepath.Join(src, "c,1", "0flat.png")
	if err == nil || !strings.Contains(err.Error(), "covariance of "+flat+": region 0 (8x8+0+0)") || !errors.Is(err, spd.ErrNotSPD) {
		t.Errorf("error %v, want one naming %s and its region, wrapping spd.ErrNotSPD", err, flat)
	}
	if d := foldertest.Diff(before, foldertest.Files(t, prev)); d != "" {
		t.Errorf("failed run changed the previous output: %s", d)
	}

	// SkipBad lists both and describes the others.
	none.SkipBad = true
	out := describeTo(t, []*datasets.List{list}, none)
	got, err := store.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta.Counts != (store.Counts{Images: 9, Described: 7, Failed: 2, Descriptors: 7}) {
		t.Errorf("counts %+v", got.Meta.Counts)
	}
	for _, r := range got.Rows {
		if strings.Contains(r.Path, "0bad") || strings.Contains(r.Path, "0flat") {
			t.Errorf("bad image %s described", r.Path)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, store.FailuresFile))
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "path,error" || !strings.HasPrefix(lines[1], "b/0bad.png,load ") ||
		!strings.HasPrefix(lines[2], `"c,1/0flat.png","covariance of `) || !strings.Contains(lines[2], "region 0 (8x8+0+0)") {
		t.Errorf("failures.csv:\n%s", b)
	}

	// A run without SkipBad removes the stale failures.csv.
	if _, err := Describe(ctx, []*datasets.List{noCorrupt}, out, Options{Features: fset("I,x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, store.FailuresFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale failures.csv left: %v", err)
	}
}

// TestCancel checks that a cancelled run returns the context's error and
// leaves nothing.
func TestCancel(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages, 4))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Describe(ctx, []*datasets.List{list}, out, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cancelled run left its output folder: %v", err)
	}
}

// TestSeveralInputs checks the concatenation of inputs and the "k:"
// prefix that keeps equal relative paths apart.
func TestSeveralInputs(t *testing.T) {
	a := openFolders(t, writeImages(t, testImages[:3], 5))
	b := openFolders(t, writeImages(t, testImages[:2], 6))
	out := describeTo(t, []*datasets.List{a, b}, Options{Workers: 2})
	got, err := store.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	man, _ := os.ReadFile(filepath.Join(out, store.ManifestFile))
	want := "index,path,label,region\n" +
		"0,0:a/1.png,a,16x12+0+0\n1,0:a/2.pgm,a,12x16+0+0\n2,0:a/sub/3.png,a,20x20+0+0\n" +
		"3,1:a/1.png,a,16x12+0+0\n4,1:a/2.pgm,a,12x16+0+0\n"
	if string(man) != want {
		t.Errorf("manifest:\n%s\nwant:\n%s", man, want)
	}
	if got.Rows[3].Input != 1 || got.Rows[3].Path != "a/1.png" || got.Rows[2].Input != 0 {
		t.Errorf("rows %+v", got.Rows)
	}
	if len(got.Meta.Inputs) != 2 || got.Meta.Inputs[1] != (store.Input{Root: b.Root, Images: 2}) {
		t.Errorf("inputs %+v", got.Meta.Inputs)
	}
	// Same images, same blocks: the block seed depends on the relative path.
	d2 := got.Meta.Dim * got.Meta.Dim
	if slices.Equal(got.Data[0:d2], got.Data[3*d2:4*d2]) {
		t.Error("different images gave equal descriptors")
	}
}

// TestDescribeErrors checks the errors for bad options and inputs.
func TestDescribeErrors(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages[:2], 7))
	ok := []*datasets.List{list}
	dir := t.TempDir()
	for _, tc := range []struct {
		inputs []*datasets.List
		o      Options
		want   string
	}{
		{ok, Options{Width: 8}, "give both width and height"},
		{ok, Options{Filter: imageio.Filter(99)}, "unknown filter"},
		{ok, Options{Regions: covariance.Layout{Kind: covariance.LayoutGrid}}, "grid"},
		{ok, Options{Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2}}, "region layout grid:2x0"},
		{ok, Options{Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 3, Side: 1}}, "region layout blocks:3:1"},
		{ok, Options{Regions: covariance.Layout{Kind: covariance.LayoutBlocks, Side: 4}}, "region layout blocks:0:4"},
		{ok, Options{Regions: covariance.Layout{Kind: 7}}, "unknown region layout kind 7"},
		{ok, Options{Reg: covariance.Regularization{Eps: -1}}, "regularisation strength -1"},
		{ok, Options{Reg: covariance.Regularization{Kind: covariance.None, Eps: 1}}, "kind none"},
		{ok, Options{Shard: store.Shard{Index: 2, Count: 2}}, "2/2"},
		{ok, Options{Workers: -1}, "-1 workers"},
		{nil, Options{}, "no inputs"},
		{[]*datasets.List{{Root: dir}}, Options{}, "no images"},
		{[]*datasets.List{nil}, Options{}, "input 0 is nil"},
		{[]*datasets.List{{Root: dir, Items: []datasets.Item{{Path: "x\n.png", Rel: "x\n.png", Label: "a"}}}}, Options{}, "line break"},
		{ok, Options{Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 3, Cols: 3}}, "regions of " + list.Items[0].Path},
	} {
		out := filepath.Join(dir, "out")
		if _, err := Describe(context.Background(), tc.inputs, out, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.o, err, tc.want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%+v: failed run left its output folder: %v", tc.o, err)
		}
	}
}

// TestReporter checks the progress calls.
func TestReporter(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages, 8))
	rep := &countReporter{}
	describeTo(t, []*datasets.List{list}, Options{Reporter: rep, Shard: store.Shard{Index: 1, Count: 2}})
	if rep.begin != "describe" || rep.total != 4 || rep.done != 4 || rep.ends != 1 {
		t.Errorf("reporter %+v, want Begin(describe, 4), 4 advanced, End once", rep)
	}
}

type countReporter struct {
	begin             string
	total, done, ends int
}

func (r *countReporter) Begin(stage string, total int) { r.begin, r.total = stage, total }
func (r *countReporter) Advance(n int)                 { r.done += n }
func (r *countReporter) End()                          { r.ends++ }

// TestCurrent checks the cache test: a folder is current for the options
// and inputs that made it, and for nothing else.
func TestCurrent(t *testing.T) {
	src := writeImages(t, testImages, 16)
	list := openFolders(t, src)
	inputs := []*datasets.List{list}
	o := Options{Features: fset("I,x,y"), Workers: 1}
	out := describeTo(t, inputs, o)
	shard := describeTo(t, inputs, Options{Features: fset("I,x,y"), Shard: store.Shard{Index: 1, Count: 2}})
	imagetest.Write(t, filepath.Join(src, "a", "4.png"), flat(4, 4))
	more := openFolders(t, src)
	o2 := o
	o2.Workers, o2.Reporter = 7, &countReporter{}
	// A torn folder: out's files with the shard's manifest.
	torn := describeTo(t, inputs, o)
	man, err := os.ReadFile(filepath.Join(shard, store.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	foldertest.WriteFile(t, filepath.Join(torn, store.ManifestFile), man)
	for _, tc := range []struct {
		name   string
		dir    string
		inputs []*datasets.List
		o      Options
		want   bool
	}{
		{"same", out, inputs, o, true},
		{"other workers and reporter", out, inputs, o2, true},
		{"other seed", out, inputs, Options{Features: fset("I,x,y"), Seed: 1}, false},
		{"other features", out, inputs, Options{Features: fset("I,y,x")}, false},
		{"other estimator", out, inputs, Options{Features: fset("I,x,y"), Estimator: covariance.LedoitWolf}, false},
		{"other normalisation", out, inputs, Options{Features: fset("I,x,y"), Normalize: covariance.NormTrace}, false},
		{"other images", out, []*datasets.List{more}, o, false},
		{"two inputs", out, []*datasets.List{list, list}, o, false},
		{"shard", shard, inputs, Options{Features: fset("I,x,y"), Shard: store.Shard{Index: 1, Count: 2}}, true},
		{"other shard", shard, inputs, Options{Features: fset("I,x,y"), Shard: store.Shard{Index: 0, Count: 2}}, false},
		{"not a shard", shard, inputs, o, false},
		{"missing", filepath.Join(out, "nope"), inputs, o, false},
		{"torn", torn, inputs, o, false},
	} {
		got, err := Current(tc.dir, tc.inputs, tc.o)
		if err != nil || got != tc.want {
			t.Errorf("%s: Current = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := Current(out, inputs, Options{Workers: -1}); err == nil {
		t.Error("Current accepted invalid options")
	}
}

// TestShards checks that the shards of a run, each on another number of
// workers and merged by store.Merge in any argument order, equal the
// unsharded run byte for byte, with failures and random blocks, for 1, 2,
// 3 and more shards than images.
func TestShards(t *testing.T) {
	src := writeImages(t, testImages, 12)
	foldertest.WriteFile(t, filepath.Join(src, "b", "0bad.png"), []byte("not a png"))
	inputs := []*datasets.List{openFolders(t, src), openFolders(t, writeImages(t, testImages[2:5], 13))}
	o := Options{Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 2, Side: 4}, Seed: 3, SkipBad: true}
	whole := describeTo(t, inputs, o)
	ref, err := store.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Meta.Counts != (store.Counts{Images: 11, Described: 10, Failed: 1, Descriptors: 20}) {
		t.Fatalf("counts %+v", ref.Meta.Counts)
	}
	for _, n := range []int{1, 2, 3, 13} {
		dirs := shardRun(t, inputs, o, n)
		if n == 1 {
			if d := foldertest.Same(t, whole, dirs[0]); d != "" {
				t.Errorf("shard 0/1 differs from the unsharded run: %s", d)
			}
		}
		args := make([]string, n)
		for i, d := range dirs {
			args[n-1-i] = d
		}
		out := filepath.Join(t.TempDir(), "merged")
		if _, err := store.Merge(context.Background(), out, args); err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if d := foldertest.Same(t, whole, out); d != "" {
			t.Errorf("%d shards: merged output differs from the unsharded run: %s", n, d)
		}
	}
}

// TestBlockSeed pins BlockSeed to FNV-1a computed by hand (offset
// 14695981039346656037, prime 1099511628211, over the seed's 8
// little-endian bytes then the path), so that block layouts, and the
// descriptor caches keyed on them, stay the same; and checks that it
// allocates nothing, as it runs once per image.
func TestBlockSeed(t *testing.T) {
	seen := make(map[uint64]bool)
	for _, tc := range []struct {
		seed uint64
		rel  string
		want uint64
	}{
		{0x0, "", 0xa8c7f832281a39c5},
		{0x0, "a", 0xe604613a248ff1ac},
		{0x0, "a/b.png", 0x63efa0aaa5a9e994},
		{0x0, "ünï/x.jpg", 0x1a75d64390b77be0},
		{0x0, "D1.gif", 0xf1c156313594cb7e},
		{0x1, "", 0x89cd31291d2aefa4},
		{0x1, "a", 0x529a4ddc8ff56bbf},
		{0x1, "a/b.png", 0x35ec55f1003466cf},
		{0x1, "ünï/x.jpg", 0xfbecde214b47fef},
		{0x1, "D1.gif", 0x718ab0bf67893ee7},
		{0x2a, "", 0xff3add6b3789daef},
		{0x2a, "a", 0x3ae0cb2f5f3e5f4a},
		{0x2a, "a/b.png", 0x790ca09ad15af74e},
		{0x2a, "ünï/x.jpg", 0x2e41a5509b48c97e},
		{0x2a, "D1.gif", 0xaeee175a54d53cd4},
		{0x100000000000000, "", 0xa8c7f732281a3812},
		{0x100000000000000, "a", 0xe6017d3a248deb69},
		{0x100000000000000, "a/b.png", 0xc5386672038cc655},
		{0x100000000000000, "ünï/x.jpg", 0x30d1d0b22e4a4af9},
		{0x100000000000000, "D1.gif", 0x88ab3150687b3c01},
		{0xdeadbeefcafe, "", 0x8f87dc4d935e688f},
		{0xdeadbeefcafe, "a", 0x424445d1696c4c6a},
		{0xdeadbeefcafe, "a/b.png", 0x657dd74af8859eee},
		{0xdeadbeefcafe, "ünï/x.jpg", 0x4a1492c88fc9481e},
		{0xdeadbeefcafe, "D1.gif", 0xf1ca1f2725846434},
		{0xffffffffffffffff, "", 0x8cf51a8bfca3883d},
		{0xffffffffffffffff, "a", 0x280477de49e0b454},
		{0xffffffffffffffff, "a/b.png", 0xfa881772141afd6c},
		{0xffffffffffffffff, "ünï/x.jpg", 0xafd3b66ef3b81ad8},
		{0xffffffffffffffff, "D1.gif", 0xdc11a29226a63eb6},
	} {
		got := BlockSeed(tc.seed, tc.rel)
		if got != tc.want {
			t.Errorf("BlockSeed(%#x, %q) = %#x, want %#x", tc.seed, tc.rel, got, tc.want)
		}
		if seen[got] {
			t.Errorf("BlockSeed(%#x, %q) repeats %#x", tc.seed, tc.rel, got)
		}
		seen[got] = true
	}
	rel := strings.Repeat("class/image-0001.png", 10)
	if n := testing.AllocsPerRun(10, func() { BlockSeed(1, rel) }); n != 0 {
		t.Errorf("BlockSeed allocates %v times", n)
	}
}
