package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/imagetest"
)

// TestOpenSetMeasure checks the ROC, the rates at a false accept rate and
// the area under the ROC on answers worked out by hand, and the area
// against a count of pairs on random answers with ties.
func TestOpenSetMeasure(t *testing.T) {
	nan := math.NaN()
	// Known items 0, 1, 2 (confidences 0.9, 0.8, 0.3; item 1 wrong),
	// unknown items 3, 4 (0.5, 0.2).
	scores := []classify.ItemScore{
		{Label: 1, Score: 0.9, SCI: nan}, {Label: 0, Score: 0.8, SCI: nan}, {Label: 3, Score: 0.3, SCI: nan},
		{Label: 0, Score: 0.5, SCI: nan}, {Label: 1, Score: 0.2, SCI: nan},
	}
	truth := []int{1, 2, 3, 4, 5}
	known := []bool{true, true, true, false, false}
	r := openSetMeasure(scores, truth, known, 0.1)
	// FAR 10% of 2 unknowns admits none: the threshold is just above 0.5.
	if r.known != 3 || r.unknown != 2 || math.Abs(r.tar-200.0/3) > 1e-9 || math.Abs(r.identification-100.0/3) > 1e-9 ||
		r.threshold != math.Nextafter(0.5, 1) || math.Abs(r.closed-200.0/3) > 1e-9 || r.sci {
		t.Errorf("at 10%% FAR: %+v", r)
	}
	// The ROC: 2/3 accepted until one unknown may pass (50%), then all.
	for i, f := range rocFAR() {
		want := 200.0 / 3
		if f >= 50 {
			want = 100
		}
		if math.Abs(r.roc[i]-want) > 1e-9 {
			t.Errorf("TAR at %v%% FAR = %v, want %v", f, r.roc[i], want)
		}
	}
	if math.Abs(r.auc-5.0/6) > 1e-12 {
		t.Errorf("AUC %v, want 5/6", r.auc)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		a, b := make([]float64, 1+rng.IntN(9)), make([]float64, 1+rng.IntN(9))
		for i := range a {
			a[i] = float64(rng.IntN(5))
		}
		for i := range b {
			b[i] = float64(rng.IntN(5))
		}
		var wins float64
		for _, x := range a {
			for _, y := range b {
				switch {
				case x > y:
					wins++
				case x == y:
					wins += 0.5
				}
			}
		}
		if got, want := mannWhitney(a, b), wins/float64(len(a)*len(b)); math.Abs(got-want) > 1e-12 {
			t.Fatalf("mannWhitney(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

// writeGratings writes per images of each of classes oriented gratings
// (imagetest.Grating) into class folders under root/name.
func writeGratings(t *testing.T, root, name string, classes, per int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	for c := range classes {
		for i := range per {
			// Absolute derivatives cannot tell θ from π − θ: the angles
			// stay within [0, π/2], and the periods differ too.
			img := imagetest.Grating(rng, 16, 16, math.Pi/2*float64(c)/float64(classes-1), 3+float64(c)/2, 0.1)
			imagetest.Write(t, filepath.Join(root, name, fmt.Sprintf("c%02d", c), fmt.Sprintf("%d.png", i)), img)
		}
	}
}

// TestOpenSetTask runs an open-set task end to end on oriented gratings
// and checks its results, and that configs it cannot run are refused.
func TestOpenSetTask(t *testing.T) {
	root := t.TempDir()
	writeGratings(t, root, "g", 8, 6)
	const config = `
name: open
seed: 3
repeats: 3
plot: roc
data:
  dataset: g
  features: I,Ix,Iy
tasks:
  - name: o
    split: {train_per_class: 3}
    open_set: {unknown: 0.5}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
  - {name: nn-stein, type: nn, metric: stein}
  - {name: stein-svm, type: stein-svm, sigma: 1, c: 10}
`
	plan, err := Parse([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), plan, Options{DataRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 3 {
		t.Fatalf("%d results", len(res.Results))
	}
	for _, x := range res.Results {
		if x.Kind != results.KindOpenSet || x.FAR != 10 || len(x.Runs) != 3 || x.ROC == nil || len(x.ROC.Runs) != 3 || len(x.Thresholds) != 3 {
			t.Fatalf("%s: %+v", x.Method, x)
		}
		if want := map[string]string{"rsr": "sci", "nn-stein": "score", "stein-svm": "score"}[x.Method]; x.Rejection != want {
			t.Errorf("%s rejects by %q, want %q", x.Method, x.Rejection, want)
		}
		for r := range 3 {
			// 4 of 8 classes held out: their 3 test items each are unknowns.
			if x.KnownItems[r] != 12 || x.UnknownItems[r] != 12 || x.TrainItems[r] != 12 {
				t.Errorf("%s repeat %d: %d known, %d unknown, %d training items", x.Method, r, x.KnownItems[r], x.UnknownItems[r], x.TrainItems[r])
			}
			roc := x.ROC.Runs[r]
			if !sort.Float64sAreSorted(roc) || roc[len(roc)-1] != 100 {
				t.Errorf("%s repeat %d: ROC %v is not a rising curve to 100%%", x.Method, r, roc)
			}
		}
		// The repeats' notes are merged, each once.
		if note := "4 of 8 classes held out of training in each repeat"; !slices.Equal(x.Notes, []string{note}) {
			t.Errorf("%s: notes %q, want [%q]", x.Method, x.Notes, note)
		}
		if !(x.AUC.Mean > 0.5 && x.AUC.Mean <= 1) || x.AccuracyMean < 80 {
			t.Errorf("%s: AUC %v, accuracy on known items %v: the gratings are easy", x.Method, x.AUC, x.AccuracyMean)
		}
	}
	// The held-out classes differ between repeats.
	if r := res.Results[1]; r.Thresholds[0] == r.Thresholds[1] && r.Thresholds[1] == r.Thresholds[2] {
		t.Errorf("every repeat has the threshold %v: the held-out classes do not change", r.Thresholds[0])
	}
	for _, x := range res.Results {
		t.Logf("%s: AUC %.3f, TAR %.1f, identified %.1f, accuracy %.1f, thresholds %v", x.Method, x.AUC.Mean, x.TAR.Mean, x.Identification.Mean, x.AccuracyMean, x.Thresholds)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"open_set: {unknown: 0.5}", "open_set: {unknown: 1}", "unknown = 1, want the fraction of classes held out"},
		{"open_set: {unknown: 0.5}", "open_set: {unknown: 0.5, far: 2}", "far = 2, want a false accept rate"},
		{"split: {train_per_class: 3}", "split: {train_per_class: 3}\n    train: {pose: [a]}", "train and test selectors or split, not both"},
		{"  - {name: nn-stein, type: nn, metric: stein}", "  - {name: tsc, lambda: 0.1}", `method "tsc" cannot run on task "o" (open set): it needs to score each answer`},
		{"methods:", "  - {name: a, average: [o]}\nmethods:", `task "o" gives open-set ROCs, not accuracies`},
	} {
		_, err := Parse([]byte(strings.Replace(config, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.to, err, tc.want)
		}
	}
}
