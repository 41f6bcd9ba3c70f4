package evaluate

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// TestWrite writes handItems' evaluation as an output set and reads it
// back: evaluation.json holds the report and every mistake, the most
// confident first; confusion.csv the matrix; the figures are there, the
// montage with the mistakes that have an image, at most Montage of them.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	items := handItems()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range []int{3, 6, 9} { // three of the four mistakes
		items[i].Image = imagetest.Write(t, filepath.Join(dir, "images", items[i].Name+".png"), imagetest.NoiseNRGBA(rng, 40, 20))
	}
	items[8].Score = math.NaN()
	r, err := Evaluate(items, Options{Classes: []string{"a", "b", "c"}, Reject: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "eval")
	f, err := store.CreateFolder(context.Background(), out, store.FormatEvaluation)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	files, err := Write(f, Document{Version: "v", Model: "m", Method: "rsr", Inputs: []string{"in"}, Report: r}, items, WriteOptions{Title: "m on in", Montage: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if want := []string{DocumentFile, ConfusionFile, ConfusionPlot, ROCPlot, MontagePlot}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	set, err := store.OpenSet(out, store.FormatEvaluation)
	if err != nil {
		t.Fatal(err)
	}
	b, err := set.ReadFile(ConfusionFile)
	if want := "true,a,b,c\na,3,1,0\nb,1,2,0\nc,0,1,1\nx,1,0,0\n"; err != nil || string(b) != want {
		t.Errorf("confusion.csv %q, %v; want %q", b, err, want)
	}
	b, err = set.ReadFile(DocumentFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Model, Method string
		Accuracy      float64
		Classes       []Class
		OpenSet       *OpenSet `json:"open_set"`
		ROC           *ROC
		Misclassified []struct {
			Name, True, Predicted string
			Score                 *float64
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Model != "m" || doc.Method != "rsr" || doc.Accuracy != 60 || len(doc.Classes) != 3 || doc.OpenSet == nil || doc.OpenSet.Rejected != 4 || doc.ROC == nil {
		t.Errorf("evaluation.json: %s", b)
	}
	// Mistakes 3 (0.3), 6 (0.55), 8 (no score), 9 (0.45): by score.
	var names []string
	for _, m := range doc.Misclassified {
		names = append(names, m.Name)
	}
	if want := []string{"6", "9", "3", "8"}; !slices.Equal(names, want) || doc.Misclassified[3].Score != nil || doc.Misclassified[0].True != "b" || doc.Misclassified[0].Predicted != "a" {
		t.Errorf("misclassified %+v, want %v, the last without a score", doc.Misclassified, want)
	}
	if !strings.Contains(string(b), `"accuracy_ci95": {`) || !strings.Contains(string(b), `"unknown_classes": [`) {
		t.Errorf("evaluation.json lacks its keys:\n%s", b)
	}
	// Without images, a threshold and unknown items: neither the
	// montage nor the ROC.
	r, err = Evaluate(handItems()[:9], Options{Classes: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err = store.CreateFolder(context.Background(), filepath.Join(dir, "plain"), store.FormatEvaluation)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if files, err := Write(f, Document{Report: r}, handItems()[:9], WriteOptions{Montage: 10}); err != nil || !slices.Equal(files, []string{DocumentFile, ConfusionFile, ConfusionPlot}) {
		t.Errorf("plain: %v, %v", files, err)
	}
	// An image that cannot be read is named.
	f, err = store.CreateFolder(context.Background(), filepath.Join(dir, "bad"), store.FormatEvaluation)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	bad := handItems()
	bad[3].Image = filepath.Join(dir, "missing.png")
	if _, err := Write(f, Document{Report: r}, bad, WriteOptions{Montage: 1}); err == nil || !strings.Contains(err.Error(), "missing.png") {
		t.Errorf("a missing image: %v", err)
	}
}
