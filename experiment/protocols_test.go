package experiment_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/internal/shareddata"
	"github.com/covpipe/covpipe/store"
)

// tinyDataRoot writes miniature versions of the shared datasets, with the
// names and layouts the shipped configs expect, into a temporary data root:
// FERET (5 subjects × 7 poses, 32×32), mini-mars (3 people × 14 images over
// 2 cameras, colour JPEGs), a Brodatz album of 16 textures (512×512) and two
// USC-SIPI-style mosaics with label maps. Images of one class share a
// pattern plus noise, so the classes are learnable.
func tinyDataRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	// texture draws class c's pattern at pixel (x, y).
	texture := func(c, x, y int) float64 {
		fx, fy := 0.15+0.07*float64(c%5), 0.11+0.05*float64(c/5)
		return 0.5 + 0.35*math.Sin(fx*float64(x)+float64(c))*math.Cos(fy*float64(y)*float64(1+c%3))
	}
	gray := func(w, h, c int, noise float64) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				v := texture(c, x, y) + noise*rng.NormFloat64()
				g.SetGray(x, y, color.Gray{Y: uint8(max(0, min(255, math.Round(255*v))))})
			}
		}
		return g
	}
	for s := range 5 {
		for _, pose := range []string{"ba", "bj", "bk", "bd", "be", "bf", "bg"} {
			imagetest.Write(t, filepath.Join(root, "feret-b-32", fmt.Sprintf("%05d%s.png", s+1, pose)), gray(32, 32, s, 0.05))
		}
	}
	for p := range 3 {
		for i := range 14 {
			img := image.NewRGBA(image.Rect(0, 0, 32, 64))
			for y := range 64 {
				for x := range 32 {
					v := texture(p, x, y)
					img.Set(x, y, color.RGBA{uint8(200 * v), uint8(120 + 100*v*float64(p)/3), uint8(255 * (1 - v)), 255})
				}
			}
			pid := fmt.Sprintf("%04d", p+1)
			imagetest.Write(t, filepath.Join(root, "mini-mars", pid, fmt.Sprintf("%sC%dT0001F%03d.jpg", pid, 1+i%2, i)), img)
		}
	}
	for d := range 16 {
		imagetest.Write(t, filepath.Join(root, "brodatz", fmt.Sprintf("D%d.png", d+1)), gray(512, 512, d, 0.02))
	}
	for _, n := range []string{"texmos2", "texmos3"} {
		img := image.NewGray(image.Rect(0, 0, 512, 512))
		lab := image.NewGray(image.Rect(0, 0, 512, 512))
		for y := range 512 {
			for x := range 512 {
				c := (y/128)*2 + x/256 // 8 blocks of 256×128
				img.SetGray(x, y, color.Gray{Y: uint8(255 * texture(c, x, y))})
				lab.SetGray(x, y, color.Gray{Y: uint8(min(255, 32*(c+1)))})
			}
		}
		imagetest.Write(t, filepath.Join(root, "usc-sipi-mosaics", n+".p512.tiff"), img)
		imagetest.Write(t, filepath.Join(root, "usc-sipi-mosaics", n+".s512.tiff"), lab)
	}
	return root
}

// TestProtocolsEndToEnd runs every shipped config on the miniature data
// with 2 repeats and checks the results and their reports: the files, and
// that results.json read back gives the same summary.
func TestProtocolsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end protocols: skipped in -short mode")
	}
	root := tinyDataRoot(t)
	cache := t.TempDir()
	figures := map[string][]string{
		"reid":                 {"cmc-reid.png"},
		"reid-cross-camera":    {"cmc-cross-camera.png"},
		"brodatz-mosaics":      {"accuracy.png"},
		"dictionary-synthetic": {"energy-fig7.png"},
	}
	paths, _ := filepath.Glob("../configs/*.yaml")
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".yaml")
		t.Run(name, func(t *testing.T) {
			plan, err := experiment.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			cfg := plan.Config
			if cfg.Quick != nil {
				if err := plan.Quick(); err != nil {
					t.Fatal(err)
				}
			}
			cfg.Repeats = 2
			// 64 samples, half for training (scale.yaml trains on 2% of
			// 50,000).
			experiment.ShrinkSynthetic(plan, 64, 0.5)
			res, err := experiment.Run(context.Background(), plan, experiment.Options{DataRoot: root, CacheDir: cache})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			f, err := store.CreateFolder(context.Background(), out, store.FormatRun)
			if err != nil {
				t.Fatal(err)
			}
			b, err := res.Encode()
			if err == nil {
				err = f.WriteFile(results.FileName, b)
			}
			if err == nil {
				err = report.Write(f, res, report.Options{})
			}
			if err == nil {
				err = f.Commit()
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range append([]string{"results.json", "summary.md"}, figures[name]...) {
				if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
			back, err := results.Read(filepath.Join(out, "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := report.Summary(back), report.Summary(res); got != want {
				t.Errorf("summary of the results read back:\n%s\nwant:\n%s", got, want)
			}
			extra := 0
			if name == "dictionary-synthetic" {
				extra = 1 // the sources' reference line
			}
			if len(res.Results) != len(cfg.Tasks)*(len(cfg.Methods)+extra) {
				t.Errorf("%d results for %d tasks × %d methods", len(res.Results), len(cfg.Tasks), len(cfg.Methods))
			}
			// The miniature classes are learnable: every method must beat by
			// far what a classifier that ignores its input reaches (at most
			// 33% here: 3 people, 4 synthetic classes, 5 FERET subjects, 5
			// to 16 textures). The faces and people, one pattern each, are
			// separable outright.
			floor := 45.0
			if name == "dictionary-brodatz" || name == "brodatz-mosaics" {
				floor = 30 // up to 16 miniature textures: chance is 6%
			}
			if name == "feret" || name == "feret-64" || strings.HasPrefix(name, "reid") {
				floor = 90
			}
			for _, r := range res.Results {
				if r.Kind == results.KindEnergy {
					// Energy curves (Fig. 7): Algorithm 1 and k-means
					// lower J from their starting dictionaries.
					last := len(r.Energy) - 1
					if r.Method != "sources" && !(r.Energy[last] < r.Energy[0]) {
						t.Errorf("%s/%s: energy %v does not fall", r.Task, r.Method, r.Energy)
					}
					if len(r.EnergyRuns) != 2 || r.FinalEnergy != r.Energy[last] || r.FinalEnergyStd != r.EnergyStd[last] || r.AccuracyMean != 0 || r.Runs != nil {
						t.Errorf("%s/%s: energy result %+v", r.Task, r.Method, r)
					}
					continue
				}
				if len(r.Runs) != 2 || !(r.AccuracyMean >= floor) {
					t.Errorf("%s/%s: accuracy %.2f (runs %v), want >= %v", r.Task, r.Method, r.AccuracyMean, r.Runs, floor)
				}
			}
		})
	}
}

// TestMissingDataset checks that a missing dataset names the folder
// expected and what it should hold.
func TestMissingDataset(t *testing.T) {
	plan, err := experiment.Load("../configs/feret.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = experiment.Run(context.Background(), plan, experiment.Options{DataRoot: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "feret-b-32 not found") || !strings.Contains(err.Error(), "SSSSSxx") {
		t.Errorf("got %v", err)
	}
}

// TestMosaicsOnSharedData runs the texture protocol on the real Brodatz
// album and USC-SIPI mosaics (skipped when absent), 2 repeats.
func TestMosaicsOnSharedData(t *testing.T) {
	if testing.Short() {
		t.Skip("real-data protocol: skipped in -short mode")
	}
	dir := shareddata.Dir(t, "brodatz")
	shareddata.Dir(t, "usc-sipi-mosaics")
	plan, err := experiment.Load("../configs/brodatz-mosaics.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan.Config.Repeats = 2
	res, err := experiment.Run(context.Background(), plan, experiment.Options{DataRoot: filepath.Dir(dir)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.Method == "rsr" && r.AccuracyMean < 60 {
			t.Errorf("%s: RSR accuracy %.1f%% on a texture mosaic", r.Task, r.AccuracyMean)
		}
	}
}
