package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPredictProbabilities fits models and predicts with
// --probabilities: predictions.csv has the columns of a prediction
// without it, then p:CLASS for each class, sorted; each row's
// probabilities are nonnegative and sum to 1 within 1e-12, the label's
// is the score where the score is the probability (rsr) and the largest
// where the label is the most probable class (nn); a fused model's rows
// too; from the images and from their describe folder alike. A model
// whose method gives none is refused, naming the method, and writes no
// file.
func TestPredictProbabilities(t *testing.T) {
	dir, train, test := gratingFolders(t, 5)
	testDesc := filepath.Join(dir, "test-desc")
	describeTexture(t, testDesc, test)
	classes := []string{"back", "flat", "steep"}
	for _, tc := range []struct {
		name string
		fit  []string
		// scoreIsProbability: the score is the label's probability;
		// argmax: the label has the largest probability.
		scoreIsProbability, argmax bool
	}{
		{"rsr", []string{"--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.1"}, true, true},
		{"nn", []string{"--method", "nn", "--metric", "log-euclidean"}, false, true},
		{"fused", []string{"--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.1", "--regions", "whole+grid:2x2", "--fusion", "sum"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := filepath.Join(dir, tc.name)
			if _, stderr, err := runCLI(t, append(append([]string{"fit", "--features", "texture", "--out", m}, tc.fit...), train)...); err != nil {
				t.Fatalf("fit: %v\n%s", err, stderr)
			}
			plainOut, probOut := filepath.Join(dir, tc.name+".csv"), filepath.Join(dir, tc.name+"-p.csv")
			if _, stderr, err := runCLI(t, "predict", "--model", m, "--out", plainOut, test); err != nil {
				t.Fatalf("predict: %v\n%s", err, stderr)
			}
			if _, stderr, err := runCLI(t, "predict", "--model", m, "--probabilities", "--out", probOut, test); err != nil {
				t.Fatalf("predict --probabilities: %v\n%s", err, stderr)
			}
			plain, rows := readPredictions(t, plainOut), readPredictions(t, probOut, classes...)
			if len(rows) != 9 || len(plain) != len(rows) {
				t.Fatalf("%d rows with probabilities, %d without; want 9", len(rows), len(plain))
			}
			for i, r := range rows {
				if len(r) != plainColumns+len(classes) || !slices.Equal(r[:plainColumns], plain[i]) {
					t.Fatalf("row %q, without probabilities %q", r, plain[i])
				}
				p := make([]float64, len(classes))
				var sum float64
				for c := range p {
					v, err := strconv.ParseFloat(r[plainColumns+c], 64)
					if err != nil || !(v >= 0) {
						t.Fatalf("row %q: probability %q, %v", r, r[plainColumns+c], err)
					}
					p[c] = v
					sum += v
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("row %q: probabilities sum to 1%+.3g", r, sum-1)
				}
				label := slices.Index(classes, r[2])
				if tc.scoreIsProbability && r[plainColumns+label] != r[3] {
					t.Errorf("row %q: the label's probability is not its score", r)
				}
				if tc.argmax && p[label] != slices.Max(p) {
					t.Errorf("row %q: the label's probability is not the largest", r)
				}
			}
			// The describe folder of the same images gives the same rows.
			if tc.name != "fused" {
				out, stderr, err := runCLI(t, "predict", "--model", m, "--probabilities", testDesc)
				if err != nil {
					t.Fatalf("predict --probabilities from descriptors: %v\n%s", err, stderr)
				}
				b, err := os.ReadFile(probOut)
				if err != nil {
					t.Fatal(err)
				}
				if out != string(b) {
					t.Errorf("from descriptors:\n%s\nfrom images:\n%s", out, b)
				}
			}
		})
	}
	airm := filepath.Join(dir, "airm")
	if _, stderr, err := runCLI(t, "fit", "--method", "nn", "--metric", "airm", "--features", "texture", "--out", airm, train); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr)
	}
	csvOut := filepath.Join(dir, "airm.csv")
	_, _, err := runCLI(t, "predict", "--model", airm, "--probabilities", "--out", csvOut, test)
	if err == nil || !strings.Contains(err.Error(), "method nn gives no class probabilities") {
		t.Errorf("predict --probabilities with nn-airm: %v", err)
	}
	if _, err := os.Stat(csvOut); !os.IsNotExist(err) {
		t.Errorf("%s after a refusal: %v", csvOut, err)
	}
}
