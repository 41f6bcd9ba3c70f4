package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// writeNoisePNGs writes an 8×8 grey noise PNG at each of the paths
// (slash-separated, relative to root), creating their folders.
func writeNoisePNGs(t *testing.T, root string, rels ...string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rel := range rels {
		imagetest.Write(t, filepath.Join(root, filepath.FromSlash(rel)), imagetest.NoiseGray(rng, 8, 8))
	}
}

// TestSingleClassDataset checks that an experiment on a dataset of one
// class, or of unlabelled images (a plain folder), is an error naming the
// dataset's path and saying where labels come from, instead of a run that
// reports 100%; a dataset of two classes runs.
func TestSingleClassDataset(t *testing.T) {
	root := t.TempDir()
	writeNoisePNGs(t, root,
		"one/cats/a.png", "one/cats/b.png", "one/cats/c.png",
		"plain/a.png", "plain/b.png", "plain/c.png",
		"feret/00001ba.png", "feret/00001bj.png",
		"brodatz/D1.png",
		"two/cats/a.png", "two/cats/b.png", "two/dogs/a.png", "two/dogs/b.png",
	)
	if err := os.WriteFile(filepath.Join(root, "one.csv"), []byte("path,label\nplain/a.png,x\nplain/b.png,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		want []string // substrings of the error; none: the run succeeds
	}{
		{"one", []string{`dataset "one"`, filepath.Join(root, "one") + ")", `a single class, "cats" (3 images)`,
			"at least two classes", "names of the first-level folders (" + filepath.Join(root, "one") + "/<label>/...)"}},
		{"folders:one", []string{`dataset "folders:one"`, `a single class, "cats"`, "first-level folders"}},
		{"mars:one", []string{`dataset "mars:one"`, `a single class, "cats"`, "first-level folders"}},
		{"plain", []string{`dataset "plain"`, filepath.Join(root, "plain") + ")", "its 3 images have an empty label",
			"at least two classes", "first-level folders", "images directly in " + filepath.Join(root, "plain") + ", without class folders"}},
		{"feret:feret", []string{`dataset "feret:feret"`, filepath.Join(root, "feret"), `a single class, "00001" (2 images)`, "subject ids"}},
		{"brodatz:brodatz", []string{`dataset "brodatz:brodatz"`, filepath.Join(root, "brodatz"), `a single class, "D1" (1 images)`, "texture names"}},
		{"one.csv", []string{`dataset "one.csv"`, filepath.Join(root, "one.csv"), `a single class, "x"`, "label column"}},
		{"two", nil},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			res, err := Run(context.Background(), nnPlan(t, "labels", tc.spec), Options{DataRoot: root})
			if tc.want == nil {
				if err != nil || len(res.Results) != 1 {
					t.Fatalf("two classes: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got no error (accuracy %v), want one containing %q", res.Results[0].AccuracyMean, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// nnPlan is the plan of experiment name: one random split of a training
// item per class of dataset, classified by nearest neighbour under the
// Stein divergence.
func nnPlan(t *testing.T, name, dataset string) *Plan {
	t.Helper()
	p, err := Parse(fmt.Appendf(nil, `
name: %s
seed: 1
repeats: 1
data:
  dataset: %q
  features: I,Ix,Iy
tasks:
  - name: t
    split: {train_per_class: 1}
methods:
  - {name: nn-stein, type: nn, metric: stein}
`, name, dataset))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShortClasses checks that a random split whose train_per_class
// leaves a class nothing to test on is an error naming the class and its
// size, unless the split says short_classes: train-all-but-one, which
// trains such a class on all its items but one with a note; and that
// short_classes takes no other value, nor a split by a metadata key.
func TestShortClasses(t *testing.T) {
	root := t.TempDir()
	writeNoisePNGs(t, root, "d/cats/a.png", "d/cats/b.png", "d/cats/c.png",
		"d/dogs/a.png", "d/dogs/b.png", "d/dogs/c.png", "d/dogs/d.png", "d/dogs/e.png")
	config := func(split string) string {
		return "name: short\nseed: 1\nrepeats: 2\ndata: {dataset: d, features: \"I,Ix,Iy\"}\n" +
			"tasks:\n  - {name: t, split: " + split + "}\nmethods:\n  - {name: nn, type: nn, metric: stein}\n"
	}
	for _, tc := range []struct {
		split, err, note string // err: at load or in the run
	}{
		{"{train_per_class: 2}", "", ""},
		{"{train_per_class: 3}", `task "t": split: train_per_class is 3 but class "cats" has 3 items, which would leave nothing to test on: lower train_per_class, or add short_classes: train-all-but-one to the split`, ""},
		{"{train_per_class: 5}", `split: train_per_class is 5 but 2 classes have 5 or fewer (the smallest, "cats", has 3)`, ""},
		{"{train_per_class: 3, short_classes: train-all-but-one}", "", `1 classes with too few items for 3 training items: class "cats" has 3 items: 2 for training`},
		{"{train_per_class: 3, short_classes: all}", `split: short_classes "all", want train-all-but-one`, ""},
		{"{by: camera, short_classes: train-all-but-one}", "split: short_classes applies to a random split, not to one by camera", ""},
	} {
		var res *results.Results
		p, err := Parse([]byte(config(tc.split)))
		if err == nil {
			res, err = Run(context.Background(), p, Options{DataRoot: root})
		}
		if failed(t, tc.split, err, tc.err) {
			continue
		}
		if notes := res.Results[0].Notes; tc.note == "" && len(notes) > 0 || tc.note != "" && !slices.Contains(notes, tc.note) {
			t.Errorf("%s: notes %q, want %q", tc.split, notes, tc.note)
		}
	}
}

// TestSkipBad checks that an image that fails to decode fails the run,
// naming it and suggesting data.skip_bad, and that with skip_bad it is
// left out, counted in the notes of every task's results, open-set
// tasks included.
func TestSkipBad(t *testing.T) {
	root := t.TempDir()
	writeNoisePNGs(t, root, "d/cats/a.png", "d/cats/b.png", "d/cats/c.png", "d/dogs/a.png", "d/dogs/b.png", "d/dogs/c.png",
		"d/owls/a.png", "d/owls/b.png", "d/owls/c.png")
	bad := filepath.Join(root, "d", "dogs", "bad.png")
	if err := os.WriteFile(bad, []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := func(skip bool) []byte {
		return fmt.Appendf(nil, "name: bad\nseed: 1\nrepeats: 2\ndata: {dataset: d, features: \"I,Ix,Iy\", skip_bad: %v}\n"+
			"tasks:\n  - {name: t, split: {train_per_class: 1}}\n"+
			"  - {name: open, split: {train_per_class: 1}, open_set: {unknown: 0.3}}\n"+
			"methods:\n  - {name: nn, type: nn, metric: stein}\n", skip)
	}
	p, err := Parse(config(false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), p, Options{DataRoot: root})
	if err == nil || !strings.Contains(err.Error(), "load "+bad+": image: unknown format") || !strings.HasSuffix(err.Error(), "(data.skip_bad: true leaves out the images that fail)") {
		t.Errorf("bad image: %v", err)
	}
	p, err = Parse(config(true))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, err := Run(context.Background(), p, Options{DataRoot: root, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	const note = "1 of the 10 images of d failed to load or describe and were left out (data.skip_bad)"
	for _, r := range res.Results {
		if !slices.Contains(r.Notes, note) {
			t.Errorf("task %s: notes %q, want %q", r.Task, r.Notes, note)
		}
	}
	if r := res.Results[0]; r.TestItems[0] != 6 {
		t.Errorf("%v test items, want 6", r.TestItems)
	}
	if !strings.Contains(log.String(), "failed=1 images=10") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestUnknownDatasetKind checks that a mistyped kind is named as such,
// with a suggestion, rather than reported as a missing path, and that a
// missing folder of a known kind (folders:NAME too) is reported as one,
// naming the folder expected and what it should hold.
func TestUnknownDatasetKind(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct{ spec, want string }{
		{"folder:orl", `unknown kind "folder" (kinds: brodatz, csv, feret, folders, mars); did you mean folders:?`},
		{"folders:orl", fmt.Sprintf(`dataset "folders:orl": %s not found (data root %q): expected one folder per class`, filepath.Join(root, "orl"), root)},
		{"mars:mini-mars", fmt.Sprintf(`dataset "mars:mini-mars": %s not found (data root %q): expected one folder per person id`, filepath.Join(root, "mini-mars"), root)},
		{"orl", fmt.Sprintf(`dataset "orl": %s not found (data root %q): expected one folder per class`, filepath.Join(root, "orl"), root)},
	} {
		_, err := openDataset(root, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestDescriptorCacheRecovers checks that a descriptor cache folder holds
// the bytes that describe writes with the same options (the run's seed
// left out, as the layout has no random blocks), and that one that holds
// NaN (with a meta.json that matches it) or is torn (files that do not
// match its meta.json, as a killed run leaves them) is recomputed with a
// warning naming the folder, instead of failing every run.
func TestDescriptorCacheRecovers(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeNoisePNGs(t, root, "two/cats/a.png", "two/cats/b.png", "two/dogs/a.png", "two/dogs/b.png")
	cfg := nnPlan(t, "cache", "two")
	run := func() (string, error) {
		var log bytes.Buffer
		_, err := Run(context.Background(), cfg, Options{DataRoot: root, CacheDir: cache, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		return log.String(), err
	}
	if _, err := run(); err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(cache, "descriptors", "*"))
	if len(dirs) != 1 {
		t.Fatalf("cache folders %v", dirs)
	}
	dir := dirs[0]
	plain := describeDataset(t, root, "two", "I,Ix,Iy", describe.Options{})
	if d := foldertest.Same(t, plain, dir); d != "" {
		t.Errorf("the cache folder is not describe's: %s", d)
	}
	npy := filepath.Join(dir, store.DescriptorsFile)
	for _, tc := range []struct {
		name   string
		reseal bool
		want   string
	}{
		{"NaN", true, "descriptor cache unusable"},
		{"torn", false, "descriptor cache torn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(npy)
			if err != nil {
				t.Fatal(err)
			}
			copy(b[len(b)-8:], []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // a NaN
			if !tc.reseal {
				b = b[:len(b)-8] // and a size that does not match
			}
			if err := os.WriteFile(npy, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.reseal {
				foldertest.Reseal(t, dir, store.MetaFile)
			}
			log, err := run()
			if err != nil {
				t.Fatalf("run over a damaged cache: %v", err)
			}
			if !strings.Contains(log, tc.want) || !strings.Contains(log, dir) {
				t.Errorf("log lacks a warning %q naming %s:\n%s", tc.want, dir, log)
			}
			if _, err := store.Read(dir); err != nil {
				t.Errorf("cache not recomputed: %v", err)
			}
		})
	}
}

// TestVectorCache checks that pca-src's vectors are cached as a store
// folder with vectors.npy beside the descriptors' folder: a second run
// reads both back with the same results, and a damaged vectors.npy is
// logged naming its folder and recomputed, again with the same results.
func TestVectorCache(t *testing.T) {
	root, cfg := vectorsPlan(t)
	cache := t.TempDir()
	run := func() (string, []float64) {
		t.Helper()
		var log bytes.Buffer
		res, err := Run(context.Background(), cfg, Options{DataRoot: root, CacheDir: cache, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return log.String(), res.Results[0].Runs
	}
	log, first := run()
	if strings.Contains(log, "read from cache") {
		t.Fatal("first run read from an empty cache")
	}
	log, again := run()
	if !strings.Contains(log, "vectors read from cache") || !strings.Contains(log, "descriptors read from cache") || !slices.Equal(first, again) {
		t.Errorf("second run: %v against %v; log:\n%s", again, first, log)
	}
	dirs, _ := filepath.Glob(filepath.Join(cache, "descriptors", "*", store.VectorsFile))
	if len(dirs) != 1 {
		t.Fatalf("vector cache files %v", dirs)
	}
	dir := filepath.Dir(dirs[0])
	out, err := store.Read(dir)
	if err != nil || out.Meta.Vectors == nil || *out.Meta.Vectors != (store.Vectors{FeatureSpec: "I", Step: 1}) || out.VectorLen != 64 {
		t.Fatalf("vector cache %s: %v, %+v", dir, err, out)
	}
	b, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1
	if err := os.WriteFile(dirs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	log, third := run()
	if !strings.Contains(log, "vector cache torn") || !strings.Contains(log, dir) || !slices.Equal(first, third) {
		t.Errorf("over a damaged cache: %v against %v; log:\n%s", third, first, log)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCacheEntryWaits checks that a run needing a cache entry that
// another writer holds waits for it, saying so, stays cancellable while
// it waits, and writes the entry once the other has given it up; and
// that runs sharing a cache on a miss all succeed with the same results.
func TestCacheEntryWaits(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeNoisePNGs(t, root, "two/cats/a.png", "two/cats/b.png", "two/dogs/a.png", "two/dogs/b.png")
	cfg := nnPlan(t, "cache", "two")
	first, err := Run(context.Background(), cfg, Options{DataRoot: root, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(cache, "descriptors", "*"))
	if len(dirs) != 1 {
		t.Fatalf("cache folders %v", dirs)
	}
	dir := dirs[0]
	start := func(ctx context.Context) (*syncBuffer, chan error) {
		log := new(syncBuffer)
		done := make(chan error, 1)
		go func() {
			_, err := Run(ctx, cfg, Options{DataRoot: root, CacheDir: cache, Logger: slog.New(slog.NewTextHandler(log, nil))})
			done <- err
		}()
		for !strings.Contains(log.String(), "waiting for the descriptor cache") {
			select {
			case err := <-done:
				t.Fatalf("the run did not wait for the held cache entry (%v):\n%s", err, log.String())
			case <-time.After(5 * time.Millisecond):
			}
		}
		return log, done
	}
	for _, cancelled := range []bool{true, false} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		held, err := store.CreateFolder(context.Background(), dir, store.Format)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, done := start(ctx)
		if cancelled {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("a cancelled wait: %v", err)
			}
			held.Abort()
			continue
		}
		held.Abort()
		if err := <-done; err != nil {
			t.Errorf("after the entry was given up: %v", err)
		}
		cancel()
		if _, err := store.Read(dir); err != nil {
			t.Errorf("the entry written after waiting: %v", err)
		}
	}

	os.RemoveAll(dir)
	runs := make(chan *results.Results, 3)
	for range 3 {
		go func() {
			res, err := Run(context.Background(), cfg, Options{DataRoot: root, CacheDir: cache})
			if err != nil {
				t.Error(err)
			}
			runs <- res
		}()
	}
	for range 3 {
		if res := <-runs; res != nil && res.Results[0].AccuracyMean != first.Results[0].AccuracyMean {
			t.Errorf("accuracy %v with a shared cache, %v alone", res.Results[0].AccuracyMean, first.Results[0].AccuracyMean)
		}
	}
}

// vectorsPlan writes two classes of 4 noise images under a data root
// and returns it with the plan of a method that takes descriptors and
// per-image vectors of them.
func vectorsPlan(t *testing.T) (string, *Plan) {
	t.Helper()
	root := t.TempDir()
	var rels []string
	for _, c := range []string{"cats", "dogs"} {
		for _, f := range []string{"a", "b", "c", "d"} {
			rels = append(rels, "two/"+c+"/"+f+".png")
		}
	}
	writeNoisePNGs(t, root, rels...)
	cfg, err := Parse([]byte(`
name: vectors
seed: 1
repeats: 2
data:
  dataset: two
  features: I,Ix,Iy
tasks:
  - name: t
    split: {train_per_class: 2}
methods:
  - {name: pca-src, type: pca-src, dims: 3, lambda: 0.01}
`))
	if err != nil {
		t.Fatal(err)
	}
	return root, cfg
}

// TestCacheNotWritable checks that a cache folder that cannot be written
// (here a file where the folder should be) is a warning naming it, and
// that the run goes on uncached with the results of a run without a
// cache.
func TestCacheNotWritable(t *testing.T) {
	root, cfg := vectorsPlan(t)
	want, err := Run(context.Background(), cfg, Options{DataRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(cache, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	got, err := Run(context.Background(), cfg, Options{DataRoot: root, CacheDir: cache, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("Run with an unwritable cache: %v", err)
	}
	if !strings.Contains(log.String(), "descriptor cache not writable, going on without it") ||
		!strings.Contains(log.String(), "vector cache not writable") || !strings.Contains(log.String(), cache) {
		t.Errorf("log:\n%s", log.String())
	}
	if !slices.Equal(got.Results[0].Runs, want.Results[0].Runs) {
		t.Errorf("runs %v, uncached %v", got.Results[0].Runs, want.Results[0].Runs)
	}
}

// TestThinClassWarning checks that a run warns when a class has fewer
// training items than the folds that choose among a method's
// candidates, naming the task, the class, its count and the folds, and
// that it does not when no method chooses.
func TestThinClassWarning(t *testing.T) {
	root := t.TempDir()
	writeNoisePNGs(t, root, "d/cats/a.png", "d/cats/b.png", "d/cats/c.png", "d/dogs/a.png", "d/dogs/b.png", "d/dogs/c.png")
	for _, tc := range []struct {
		method string
		warns  bool
	}{
		{"{name: rsr, type: rsr, sigma: 1, lambda: [0.05, 0.1]}", true},
		{"{name: nn, type: nn, metric: stein}", false},
	} {
		p, err := Parse(fmt.Appendf(nil, "name: thin\nseed: 1\nrepeats: 1\nfolds: 3\ndata: {dataset: d, features: \"I,Ix,Iy\"}\n"+
			"tasks:\n  - {name: t, split: {train_per_class: 2}}\nmethods:\n  - %s\n", tc.method))
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		if _, err := Run(context.Background(), p, Options{DataRoot: root, Logger: slog.New(slog.NewTextHandler(&log, nil))}); err != nil {
			t.Fatal(err)
		}
		const want = "a class has fewer training items than cross-validation folds"
		if got := strings.Contains(log.String(), want) && strings.Contains(log.String(), "task=t class=cats items=2 folds=3"); got != tc.warns {
			t.Errorf("%s: warned %v, want %v:\n%s", tc.method, got, tc.warns, log.String())
		}
	}
}
