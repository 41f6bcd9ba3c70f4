package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// evaluation is what the tests read of evaluation.json.
type evaluation struct {
	Items, Correct int
	Accuracy       float64
	Unknown        int      `json:"unknown_items"`
	UnknownClasses []string `json:"unknown_classes"`
	OpenSet        *struct {
		Accepted        int
		Rejected        int
		AcceptedCorrect int `json:"accepted_correct"`
	} `json:"open_set"`
	ROC *struct{ AUC float64 }
}

// readEvaluation reads the output set of evaluate in dir: its
// evaluation.json and the rows of its predictions.csv.
func readEvaluation(t *testing.T, dir string) (evaluation, [][]string) {
	t.Helper()
	set, err := store.OpenSet(dir, store.FormatEvaluation)
	if err != nil {
		t.Fatal(err)
	}
	b, err := set.ReadFile("evaluation.json")
	if err != nil {
		t.Fatal(err)
	}
	var e evaluation
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e, readPredictions(t, filepath.Join(dir, predictionsFile))
}

// TestEvaluate fits a model on gratings and evaluates it: on images of
// its classes (the accuracy is predictions.csv's share of rows whose label
// is the true one; the figures, a montage of the mistakes), on their
// describe folder (the same answers, no montage), and with a class it
// does not know and --reject (the unknown items, the ROC, the accepted
// answers as predictions.csv counts them); and its errors.
func TestEvaluate(t *testing.T) {
	dir, train, test := gratingFolders(t, 5)
	m := filepath.Join(dir, "model")
	if _, stderr, err := runCLI(t, "fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.05", "--features", "texture", "--out", m, train); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr)
	}
	out := filepath.Join(dir, "eval")
	stdout, stderr, err := runCLI(t, "evaluate", "--model", m, "--montage", "2", "--out", out, test)
	if err != nil {
		t.Fatalf("evaluate: %v\n%s", err, stderr)
	}
	e, rows := readEvaluation(t, out)
	right := 0
	for _, r := range rows {
		if r[2] == r[8] {
			right++
		}
	}
	if e.Items != 9 || len(rows) != 9 || e.Correct != right || math.Abs(e.Accuracy-100*float64(right)/9) > 1e-9 || e.Unknown != 0 || e.OpenSet != nil || e.ROC != nil {
		t.Errorf("evaluation %+v; predictions.csv has %d of %d right", e, right, len(rows))
	}
	if !strings.Contains(stdout, "accuracy ") || !strings.Contains(stdout, "95% interval") || !strings.Contains(stdout, "macro averages over 3 classes") || !strings.Contains(stdout, "written to "+out) {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, f := range []string{"confusion.csv", "confusion.png", "meta.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "misclassified.png")); (err == nil) != (right < 9) {
		t.Errorf("misclassified.png with %d of 9 right: %v", right, err)
	}
	// From the describe folder: the same answers, and no images to show.
	desc, fromDesc := filepath.Join(dir, "desc"), filepath.Join(dir, "eval-desc")
	describeTexture(t, desc, test)
	if _, stderr, err := runCLI(t, "evaluate", "--model", m, "--out", fromDesc, desc); err != nil {
		t.Fatalf("evaluate %s: %v\n%s", desc, err, stderr)
	}
	if e2, rows2 := readEvaluation(t, fromDesc); e2.Correct != e.Correct || !slices.Equal(flat(rows2), flat(rows)) {
		t.Errorf("from descriptors %+v, from images %+v", e2, e)
	}
	if _, err := os.Stat(filepath.Join(fromDesc, "misclassified.png")); err == nil {
		t.Error("a montage of descriptors")
	}
	// A class the model does not know, and rejection.
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 3 {
		imagetest.Write(t, filepath.Join(test, "diag", strconv.Itoa(i)+".png"), imagetest.Grating(rng, 16, 16, math.Pi/6, 4+rng.Float64(), 0.15))
	}
	open := filepath.Join(dir, "open")
	stdout, stderr, err = runCLI(t, "evaluate", "--model", m, "--reject", "0.3", "--out", open, test)
	if err != nil {
		t.Fatalf("evaluate --reject: %v\n%s", err, stderr)
	}
	e, rows = readEvaluation(t, open)
	accepted, acceptedRight := 0, 0
	for _, r := range rows {
		if r[6] == "false" {
			accepted++
			if r[2] == r[8] {
				acceptedRight++
			}
		}
	}
	if e.Items != 12 || e.Unknown != 3 || !slices.Equal(e.UnknownClasses, []string{"diag"}) || e.ROC == nil || !(e.ROC.AUC >= 0 && e.ROC.AUC <= 1) ||
		e.OpenSet == nil || e.OpenSet.Accepted != accepted || e.OpenSet.AcceptedCorrect != acceptedRight || e.OpenSet.Rejected != 12-accepted {
		t.Errorf("open set: %+v (ROC %+v, open set %+v); predictions.csv accepts %d, %d right", e, e.ROC, e.OpenSet, accepted, acceptedRight)
	}
	if _, err := os.Stat(filepath.Join(open, "roc.png")); err != nil || !strings.Contains(stdout, "3 items of 1 class the model does not know (diag)") || !strings.Contains(stdout, "AUC ") {
		t.Errorf("roc.png: %v; stdout:\n%s", err, stdout)
	}
	plain := filepath.Join(dir, "plain")
	imagetest.Write(t, filepath.Join(plain, "a.png"), imagetest.Grating(rng, 16, 16, 0, 4, 0.15))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"evaluate", "--model", m, test}, "evaluate: --out DIR is required"},
		{[]string{"evaluate", "--out", filepath.Join(dir, "e1"), test}, "evaluate: --model DIR is required"},
		{[]string{"evaluate", "--model", m, "--out", filepath.Join(dir, "e1")}, "evaluate: want at least one INPUT"},
		{[]string{"evaluate", "--model", m, "--reject", "1.5", "--out", filepath.Join(dir, "e1"), test}, "evaluate: --reject: model: rejection threshold 1.5: want a confidence in [0, 1]"},
		{[]string{"evaluate", "--model", m, "--montage", "-1", "--out", filepath.Join(dir, "e1"), test}, "evaluate: --montage -1, want >= 0"},
		{[]string{"evaluate", "--model", m, "--out", filepath.Join(dir, "e1"), plain}, "evaluate: a.png has no label: evaluate measures a model on labelled images"},
		{[]string{"evaluate", "--model", m, "--out", out, filepath.Join(m, "model.json")}, "evaluate: input "},
	} {
		if _, _, err := runCLI(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "e1")); err == nil {
		t.Error("a refused evaluation left its folder")
	}
}
