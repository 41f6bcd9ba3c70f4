package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/imagetest"
)

// gratingClasses writes class folders of 16×16 noisy gratings, one
// direction per class, n images each, into dir.
func gratingClasses(t *testing.T, dir string, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	for c, class := range []string{"flat", "steep", "back"} {
		for i := range n {
			img := imagetest.Grating(rng, 16, 16, float64(c)*math.Pi/3, 4+rng.Float64(), 0.15)
			imagetest.Write(t, filepath.Join(dir, class, strconv.Itoa(i)+".png"), img)
		}
	}
}

// readPredictions reads predictions.csv, checking its header.
func readPredictions(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if got := strings.Join(rows[0], ",") + "\n"; got != predictionsHeader {
		t.Fatalf("header %q, want %q", got, predictionsHeader)
	}
	return rows[1:]
}

// TestFitPredict fits rsr with flags and nn from a describe folder, and
// predicts: predictions.csv has a row per image with the right columns,
// images and their describe folder get the same rows, and --reject 1
// rejects every answer that is not certain.
func TestFitPredict(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	gratingClasses(t, train, 5, 1)
	gratingClasses(t, test, 3, 2)
	rsrModel, nnModel := filepath.Join(dir, "rsr"), filepath.Join(dir, "nn")
	stdout, stderr, err := runCLI(t, "fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.05,0.2", "--features", "texture", "--out", rsrModel, train)
	if err != nil || !strings.Contains(stdout, "fitted rsr on 5x5 descriptors of 3 classes") || !strings.Contains(stdout, "lambda_ratio=") {
		t.Fatalf("fit rsr: %v\n%s%s", err, stdout, stderr)
	}
	desc := filepath.Join(dir, "desc")
	if _, stderr, err := runCLI(t, "describe", "--features", "texture", "--out", desc, train); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "fit", "--method", "nn", "--metric", "stein", "--out", nnModel, desc); err != nil {
		t.Fatalf("fit nn: %v\n%s", err, stderr)
	}
	testDesc := filepath.Join(dir, "test-desc")
	if _, stderr, err := runCLI(t, "describe", "--features", "texture", "--out", testDesc, test); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	for _, m := range []string{rsrModel, nnModel} {
		csvOut := filepath.Join(dir, filepath.Base(m)+".csv")
		if _, stderr, err := runCLI(t, "predict", "--model", m, "--out", csvOut, test); err != nil {
			t.Fatalf("predict %s: %v\n%s", m, err, stderr)
		}
		rows := readPredictions(t, csvOut)
		right := 0
		for _, r := range rows {
			score, err1 := strconv.ParseFloat(r[3], 64)
			second, err2 := strconv.ParseFloat(r[5], 64)
			if err1 != nil || err2 != nil || r[1] != "16x16+0+0" || r[6] != "false" || !(score >= second) || r[2] == r[4] {
				t.Errorf("%s: row %q", m, r)
			}
			if filepath.Dir(r[0]) == r[2] {
				right++
			}
		}
		if len(rows) != 9 || right < 7 {
			t.Errorf("%s: %d rows, %d right; want 9 rows, 7 or more right", m, len(rows), right)
		}
		// The describe folder of the same images gives the same rows.
		folder := filepath.Join(dir, filepath.Base(m)+"-from-desc")
		if _, stderr, err := runCLI(t, "predict", "--model", m, "--out", folder, testDesc); err != nil {
			t.Fatalf("predict %s: %v\n%s", testDesc, err, stderr)
		}
		if got := readPredictions(t, filepath.Join(folder, predictionsFile)); strings.Join(flat(got), ",") != strings.Join(flat(rows), ",") {
			t.Errorf("%s: from descriptors %q, from images %q", m, got, rows)
		}
	}
	stdout, stderr, err = runCLI(t, "predict", "--model", rsrModel, "--reject", "1", test)
	if err != nil {
		t.Fatalf("predict --reject: %v\n%s", err, stderr)
	}
	rejected := strings.Count(stdout, ",true\n")
	if rejected == 0 || !strings.Contains(stderr, strconv.Itoa(rejected)+" rejected") {
		t.Errorf("--reject 1: %d rows rejected, stderr %q", rejected, stderr)
	}
}

// flat joins rows of cells into one list.
func flat(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}
