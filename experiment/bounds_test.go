package experiment

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/internal/strictyaml"
)

// The configs of a hostile-user probe: each sizes what a run holds far
// beyond any machine (the first would keep a 136 GB block of results, the
// second draw 2·10⁹ samples, the regions one make 10⁷ descriptors of
// 43×43 per image), takes a path out of the data root, asks for a
// degenerate σ or repeats an invalid alias.
const (
	probeRepeats = "name: p\nseed: 1\nrepeats: 1000000000\ntasks:\n" +
		"  - {name: easy, synthetic: {classes: 4, dim: 3, samples: 512, train: 0.5, spread: 1, variance: 0.85}}\n" +
		"methods:\n  - {name: nn-stein, type: nn, metric: stein}\n"
	probeSamples = "name: p\nrepeats: 1\ntasks:\n" +
		"  - name: easy\n    synthetic: {classes: 4, dim: 3, samples: 2000000000, train: 0.5, spread: 1, variance: 0.85}\n" +
		"methods:\n  - {name: nn-stein, type: nn, metric: stein}\n"
	probeRegions = "name: p\nrepeats: 1\ndata:\n  dataset: feret:feret-b-32\n  features: face\n  regions: blocks:10000000:2\n" +
		"tasks:\n  - {name: t, split: {train_per_class: 1}}\nmethods:\n  - {name: nn-stein, type: nn, metric: stein}\n"
	probeTraversal = "name: p\nrepeats: 1\ndata:\n  dataset: feret:../../../../etc\n  features: face\n" +
		"tasks:\n  - {name: t, split: {train_per_class: 1}}\nmethods:\n  - {name: nn-stein, type: nn, metric: stein}\n"
	probeMosaic = "name: p\nrepeats: 1\ndata:\n  features: texture\n  regions: grid:8x8\ntasks:\n" +
		"  - {name: t, mosaic: {build: {textures: 5, seed: 1, album: ../../brodatz}}, split: {train_per_class: 5}}\n" +
		"methods:\n  - {name: nn-stein, type: nn, metric: stein}\n"
	probeSigma = "name: p\nrepeats: 1\ntasks:\n" +
		"  - {name: easy, synthetic: {classes: 4, dim: 3, samples: 64, train: 0.5, spread: 1, variance: 0.85}}\n" +
		"methods:\n  - {name: rsr, sigma: 1e308, lambda: 0.05}\n  - {name: svm, type: stein-svm, sigma: [1, 1e7], c: 1}\n"
	// probeAlias uses an invalid aliased node eight times, which the YAML
	// decoder reports at each use.
	probeAlias = "name: p\nrepeats: 1\nquick: {methods: [&a {x: 1}, *a, *a, *a, *a, *a, *a, *a]}\ntasks:\n" +
		"  - {name: easy, synthetic: {classes: 4, dim: 3, samples: 64, train: 0.5, spread: 1, variance: 0.85}}\n" +
		"methods:\n  - {name: nn-stein, type: nn, metric: stein}\n"
)

// aliasBomb is a config whose description holds 10^9 strings once its
// aliases are expanded.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("name: p\nrepeats: 1\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	b.WriteString("description: *l8\n")
	return b.String()
}

// TestMemoryBounds checks that settings that size what a run holds
// beyond the memory limit are refused before anything is allocated,
// naming the setting, its line and the estimate, and that raising the
// limit admits them.
func TestMemoryBounds(t *testing.T) {
	synthetic := func(repl ...string) string {
		return strings.NewReplacer(repl...).Replace(probeRepeats)
	}
	for _, tc := range []struct {
		name, yaml string
		want       string
		admitted   int64 // a limit that admits it; 0: none
	}{
		{"repeats", probeRepeats, "line 3: repeats: 1000000000 repeats of 1 task keep the results of 1 method, about 626 GiB, over the memory limit of 4 GiB", 1 << 40},
		{"samples", probeSamples, "line 5: tasks[0].synthetic.samples: 2000000000 samples of 3×3 (1000000000 for training) in each of 1 repeat at once, about", 0},
		{"regions", probeRegions, "line 6: data.regions: blocks:10000000:2 makes 10000000 descriptors of 43×43 per image, about 138 GiB", 1 << 40},
		{"resize", strings.Replace(probeRegions, "regions: blocks:10000000:2", "resize: 8192x8192", 1), "line 6: data.resize: a 8192x8192 image takes 3 image and 43 feature planes of float64, about 23 GiB", 1 << 40},
		{"cmc", synthetic("repeats: 1000000000", "repeats: 10\ncmc: 100000000"), "line 4: cmc: 10 repeats of 1 task keep CMC curves of 100000000 ranks for 1 method, about 8.94 GiB", 1 << 40},
		{"folds", synthetic("repeats: 1000000000", "repeats: 1\nfolds: 1000000000"), "line 4: folds: 1000000000 cross-validation folds in each of 1 repeat at once, about 22.4 GiB", 1 << 40},
		{"classes", synthetic("repeats: 1000000000", "repeats: 1", "classes: 4", "classes: 40000", "samples: 512", "samples: 80000", "type: nn, metric: stein", "type: nn, metric: thompson"),
			"line 5: tasks[0].synthetic.classes: 40000 classes make a confusion matrix for each of 1 method, about 11.9 GiB", 1 << 40},
		{"energy points", "name: p\nrepeats: 1\ntasks:\n  - {name: fig7, energy_curve: {sources: 4, dim: 5, points: 200000000, samples: 16, mix: 2, atoms: 4, iters: 2}}\n" +
			"methods:\n  - {name: codes, type: codes, dictionary: learned, sigma: 2, lambda: 0.1}\n",
			"line 4: tasks[0].energy_curve.points: 200000000 points of dimension 5 make a source, about 7.45 GiB", 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			p.Config.Workers = 1
			err = p.CheckMemory(0)
			if !errors.Is(err, config.ErrConfig) || !errors.Is(err, describe.ErrMemory) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckMemory: %v\nwant %q", err, tc.want)
			}
			// Run refuses it before drawing or allocating anything.
			if _, err := Run(context.Background(), p, Options{}); !errors.Is(err, describe.ErrMemory) {
				t.Fatalf("Run: %v, want the memory error", err)
			}
			if tc.admitted != 0 {
				if err := p.CheckMemory(tc.admitted); err != nil {
					t.Errorf("CheckMemory(%d): %v", tc.admitted, err)
				}
			}
		})
	}
	p, err := Parse([]byte(validYAML))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckMemory(-1); !errors.Is(err, config.ErrConfig) {
		t.Errorf("CheckMemory(-1): %v, want ErrConfig", err)
	}
	if err := p.CheckMemory(1 << 10); !errors.Is(err, describe.ErrMemory) {
		t.Errorf("CheckMemory(1 KiB): %v, want the memory error", err)
	}
}

// TestMemoryCountsParallelRepeats checks that the repeats that run at
// once each hold their samples: a synthetic task that fits one at a time
// is refused when 64 workers would run 64 repeats at once.
func TestMemoryCountsParallelRepeats(t *testing.T) {
	p, err := Parse([]byte(strings.NewReplacer("repeats: 1000000000", "repeats: 100", "samples: 512", "samples: 100000", "train: 0.5", "train: 0.01").Replace(probeRepeats)))
	if err != nil {
		t.Fatal(err)
	}
	p.Config.Workers = 1
	if err := p.CheckMemory(0); err != nil {
		t.Fatalf("one repeat at a time: %v", err)
	}
	p.Config.Workers = 64
	if err := p.CheckMemory(0); err == nil || !strings.Contains(err.Error(), "in each of 64 repeats at once") {
		t.Fatalf("64 repeats at a time: %v", err)
	}
}

// TestDataMemoryBound checks the bound on a dataset's descriptors, which
// Run checks once it has listed the images.
func TestDataMemoryBound(t *testing.T) {
	p, err := Parse([]byte(strings.NewReplacer("feret:feret-b-32", "brodatz:brodatz", "face", "texture", "blocks:10000000:2", "blocks:200000:2").Replace(probeRegions)))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckMemory(0); err != nil {
		t.Fatalf("per image: %v", err)
	}
	err = p.checkDataMemory(111, 0)
	want := "line 6: data.regions: 111 images of brodatz:brodatz with blocks:200000:2 make 22200000 descriptors of 5×5, for each of 1 ridge candidate, about 4.14 GiB"
	if !errors.Is(err, describe.ErrMemory) || !strings.Contains(err.Error(), want) {
		t.Errorf("checkDataMemory: %v, want %q", err, want)
	}
	if err := p.checkDataMemory(100, 0); err != nil {
		t.Errorf("100 images: %v", err)
	}
}

// TestShippedConfigsWithinMemory checks that every shipped config, in
// full and as its quick subset, fits the default memory limit with 64
// workers, and its dataset's descriptors for 10,000 images (the shared
// datasets have at most 5,572).
func TestShippedConfigsWithinMemory(t *testing.T) {
	paths, err := filepath.Glob("../configs/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no configs found: %v", err)
	}
	for _, path := range paths {
		for _, quick := range []bool{false, true} {
			p, err := Load(path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if quick && p.Config.Quick != nil {
				if err := p.Quick(); err != nil {
					t.Fatal(err)
				}
			}
			p.Config.Workers = 64
			if err := p.CheckMemory(0); err != nil {
				t.Errorf("%s (quick %v): %v", path, quick, err)
			}
			if p.data != nil {
				if err := p.checkDataMemory(10000, 0); err != nil {
					t.Errorf("%s: %v", path, err)
				}
			}
		}
	}
}

// TestPathsStayUnderRoot checks that relative dataset and mosaic paths
// that leave the data root are refused before anything is read, naming
// the setting, its line and the root, and that absolute paths and
// relative ones that stay inside pass.
func TestPathsStayUnderRoot(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct{ yaml, want string }{
		{probeTraversal, `line 4: data.dataset "feret:../../../../etc": ../../../../etc leaves the data root "` + root + `", under which relative paths are read; give an absolute path to read outside it`},
		{strings.Replace(probeTraversal, "feret:../../../../etc", "../x", 1), `data.dataset "../x": ../x leaves the data root`},
		{strings.Replace(probeTraversal, "feret:../../../../etc", "feret:a/../../x", 1), `data.dataset "feret:a/../../x"`},
		{probeMosaic, `line 7: tasks[0].mosaic.build.album "../../brodatz": ../../brodatz leaves the data root "` + root + `"`},
		{strings.Replace(probeMosaic, "build: {textures: 5, seed: 1, album: ../../brodatz}", "image: a.png, labels: ../b.png", 1), `tasks[0].mosaic.labels "../b.png": ../b.png leaves`},
	} {
		p, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), p, Options{DataRoot: root})
		if !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run: %v\nwant %q", err, tc.want)
		}
	}
	for _, dataset := range []string{"feret:" + root + "/../feret", "feret:a/../feret", "feret:./feret"} {
		p, err := Parse([]byte(strings.Replace(probeTraversal, "feret:../../../../etc", dataset, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.checkPaths(root); err != nil {
			t.Errorf("%s: %v", dataset, err)
		}
	}
}

// TestDegenerateSigmaWarns checks that a σ Theorem 1 allows but for which
// every off-diagonal kernel value underflows loads with a warning naming
// the method, the line and the reason, and that usual σ do not warn.
func TestDegenerateSigmaWarns(t *testing.T) {
	p, err := Parse([]byte(probeSigma))
	if err != nil {
		t.Fatal(err)
	}
	w := p.Warnings()
	if len(w) != 2 || !strings.HasPrefix(w[0], `line 6: method "rsr": sigma = 1e+308, above 1e+06, makes a degenerate kernel: exp(−σ·q) is 0 for every pair whose divergence q exceeds 7.5e-306 (745/σ)`) ||
		!strings.HasPrefix(w[1], `line 7: method "svm": sigma = 1e+07`) {
		t.Errorf("warnings %q", w)
	}
	p, err = Parse([]byte(validYAML))
	if err != nil || len(p.Warnings()) != 0 {
		t.Errorf("σ = 1: warnings %q, %v", p.Warnings(), err)
	}
}

// TestYAMLBounds checks the reader's bounds on experiment files: an
// aliased node's error is reported once, an alias bomb fails before it
// is expanded, and a file over 1 MiB with a bad last line fails before it
// is parsed, naming the file and the limit.
func TestYAMLBounds(t *testing.T) {
	_, err := Parse([]byte(probeAlias))
	const msg = "methods: want a single value, got a mapping"
	if !errors.Is(err, config.ErrConfig) || strings.Count(err.Error(), msg) != 1 || !strings.Contains(err.Error(), "line 3: "+msg) {
		t.Errorf("repeated alias: %v, want %q once", err, msg)
	}
	_, err = Parse([]byte(aliasBomb()))
	if !errors.Is(err, config.ErrConfig) || !errors.Is(err, strictyaml.ErrTooLarge) || !strings.Contains(err.Error(), "line 6: aliases too large: up to *l2 they stand for more than 10000 nodes") {
		t.Errorf("alias bomb: %v", err)
	}
	path := filepath.Join(t.TempDir(), "long.yaml")
	long := validYAML + strings.Repeat("# padding\n", strictyaml.MaxSize/10) + "methods: [\n"
	if err := os.WriteFile(path, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	if !errors.Is(err, strictyaml.ErrTooLarge) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "at most 1 MiB") {
		t.Errorf("long file: %v, want an error naming %s and the limit", err, path)
	}
	if _, err := Parse([]byte(long)); !errors.Is(err, strictyaml.ErrTooLarge) {
		t.Errorf("Parse(long): %v, want ErrTooLarge", err)
	}
}

// TestAbsoluteMosaicPaths checks that a mosaic's absolute image and
// labels paths are read where they point, outside the data root, as the
// docs/experiments.md says and as data.dataset's are.
func TestAbsoluteMosaicPaths(t *testing.T) {
	outside := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	mosaic := imagetest.Write(t, filepath.Join(outside, "mosaic.png"), imagetest.NoiseGray(rng, 64, 64))
	labels := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range labels.Pix {
		if i%64 >= 32 {
			labels.Pix[i] = 255
		}
	}
	labelsPath := imagetest.Write(t, filepath.Join(outside, "labels.png"), labels)
	outsidePaths := strings.Replace(probeMosaic, "build: {textures: 5, seed: 1, album: ../../brodatz}",
		fmt.Sprintf("image: %q, labels: %q", mosaic, labelsPath), 1)
	p, err := Parse([]byte(outsidePaths))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), p, Options{DataRoot: t.TempDir()}); err != nil {
		t.Errorf("Run: %v", err)
	}
}
