package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitPrintsCV checks that fit prints its cross-validation table, the
// chosen row marked and being the parameters the model chose, that
// inspect prints what the model holds with the same table, that fit
// refuses folds that a class cannot fill, and inspect's errors.
func TestFitPrintsCV(t *testing.T) {
	dir, train, _ := gratingFolders(t, 5)
	m := filepath.Join(dir, "model")
	stdout, stderr, err := runCLI(t, "fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.05,0.2", "--features", "texture", "--out", m, train)
	if err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr)
	}
	b, err := os.ReadFile(filepath.Join(m, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Chosen map[string]float64
		CV     []struct {
			Chosen     int
			Candidates []struct{ Name string }
		}
	}
	if err := json.Unmarshal(b, &rec); err != nil || len(rec.CV) != 1 {
		t.Fatalf("model.json: %v, cv %+v", err, rec.CV)
	}
	chosen := fmt.Sprintf("sigma=0.5 lambda_ratio=%g", rec.Chosen["lambda_ratio"])
	if got := rec.CV[0].Candidates[rec.CV[0].Chosen].Name; got != chosen {
		t.Errorf("model.json: chosen row %q, chosen parameters %q", got, chosen)
	}
	_, table, ok := strings.Cut(stdout, "\ncross-validation of the parameters: 3 folds of 15 training items\n")
	if !ok || !strings.Contains(table, "*  "+chosen+" ") || !strings.Contains(table, "fold 1  fold 2  fold 3") ||
		!strings.Contains(table, "chosen: "+chosen+", by the highest mean accuracy over the folds") {
		t.Fatalf("fit printed no table of the choice of %s:\n%s", chosen, stdout)
	}
	out, _, err := runCLI(t, "inspect", m)
	if err != nil || !strings.HasSuffix(out, table) {
		t.Errorf("inspect: %v\n%s\nwant it to end with fit's table:\n%s", err, out, table)
	}
	for _, want := range []string{"method            rsr\n", "parameters        kernel=stein lambda_ratio=0.05,0.2 sigma=0.5\n", "classes           3 classes: back (5), flat (5), steep (5)\n",
		"training items    15, descriptors 5x5\n", "extraction        feature_spec I,Ix,Iy,Ixx,Iyy\n", "                  ridge trace-ridge 0.0001\n", "cross-validation  3 folds, seed 0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect: no %q in\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.05,0.2", "--features", "texture", "--folds", "6", "--out", filepath.Join(dir, "m6"), train},
			`fit: model: class "back" has 5 training items, fewer than the 6 cross-validation folds that choose among the candidates, so some folds would hold none of it: lower the folds to 5 (covpipe fit --folds, Options.Folds)`},
		{[]string{"inspect"}, "inspect: want exactly one MODEL folder"},
		{[]string{"inspect", train}, "inspect: load model: "},
	} {
		if _, _, err := runCLI(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
