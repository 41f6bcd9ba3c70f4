package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
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

// describeTexture describes the images of in with texture features
// into the folder out.
func describeTexture(t *testing.T, out, in string) {
	t.Helper()
	if _, stderr, err := runCLI(t, "describe", "--features", "texture", "--out", out, in); err != nil {
		t.Fatalf("describe %s: %v\n%s", in, err, stderr)
	}
}

// gratingFolders writes into a new folder dir the class folders train,
// of n gratings per class, and test, of 3 (gratingClasses).
func gratingFolders(t *testing.T, n int) (dir, train, test string) {
	t.Helper()
	dir = t.TempDir()
	train, test = filepath.Join(dir, "train"), filepath.Join(dir, "test")
	gratingClasses(t, train, n, 1)
	gratingClasses(t, test, 3, 2)
	return dir, train, test
}

// plainColumns is the number of columns of predictions.csv of labelled
// images without probabilities: predictionsColumns and true_label.
const plainColumns = 9

// readPredictions reads predictions.csv of labelled images, checking its
// header: the columns, true_label, then those of the probabilities of
// classes (none: no such columns).
func readPredictions(t *testing.T, path string, classes ...string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	want := predictionsColumns + "," + trueLabelColumn
	for _, c := range classes {
		want += ",p:" + c
	}
	if got := strings.Join(rows[0], ","); got != want {
		t.Fatalf("header %q, want %q", got, want)
	}
	return rows[1:]
}

// TestFitPredict fits rsr with flags and nn from a describe folder, and
// predicts: predictions.csv has a row per image with the right columns,
// images and their describe folder get the same rows, and --reject 1
// rejects every answer that is not certain.
func TestFitPredict(t *testing.T) {
	dir, train, test := gratingFolders(t, 5)
	rsrModel, nnModel := filepath.Join(dir, "rsr"), filepath.Join(dir, "nn")
	stdout, stderr, err := runCLI(t, "fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.05,0.2", "--features", "texture", "--out", rsrModel, train)
	if err != nil || !strings.Contains(stdout, "fitted rsr on 5x5 descriptors of 3 classes") || !strings.Contains(stdout, "lambda_ratio=") {
		t.Fatalf("fit rsr: %v\n%s%s", err, stdout, stderr)
	}
	desc := filepath.Join(dir, "desc")
	describeTexture(t, desc, train)
	if _, stderr, err := runCLI(t, "fit", "--method", "nn", "--metric", "stein", "--out", nnModel, desc); err != nil {
		t.Fatalf("fit nn: %v\n%s", err, stderr)
	}
	testDesc := filepath.Join(dir, "test-desc")
	describeTexture(t, testDesc, test)
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
			conf, err3 := strconv.ParseFloat(r[7], 64)
			if err1 != nil || err2 != nil || r[1] != "16x16+0+0" || r[6] != "false" || !(score >= second) || r[2] == r[4] {
				t.Errorf("%s: row %q", m, r)
			}
			// The confidence is the SCI for rsr, in [0, 1], the score for
			// nn; the true label is the image's class folder.
			if err3 != nil || !(conf >= 0 && conf <= 1) || m == nnModel && r[7] != r[3] || r[8] != filepath.Dir(r[0]) {
				t.Errorf("%s: row %q: confidence %q (%v), true label %q", m, r, r[7], err3, r[8])
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
	rejectOut := filepath.Join(dir, "reject.csv")
	_, stderr, err = runCLI(t, "predict", "--model", rsrModel, "--reject", "1", "--out", rejectOut, test)
	if err != nil {
		t.Fatalf("predict --reject: %v\n%s", err, stderr)
	}
	rejected := 0
	for _, r := range readPredictions(t, rejectOut) {
		conf, _ := strconv.ParseFloat(r[7], 64)
		if r[6] == "true" {
			rejected++
		}
		if (r[6] == "true") != (conf < 1) {
			t.Errorf("--reject 1: row %q rejected %s with confidence %v", r, r[6], conf)
		}
	}
	if rejected == 0 || !strings.Contains(stderr, strconv.Itoa(rejected)+" rejected") {
		t.Errorf("--reject 1: %d rows rejected, stderr %q", rejected, stderr)
	}
	// Images of a plain folder have no label: no true_label column.
	plain := filepath.Join(dir, "plain")
	imagetest.Write(t, filepath.Join(plain, "a.png"), imagetest.Grating(rand.New(rand.NewPCG(1, 2)), 16, 16, 0, 4, 0.15))
	stdout, stderr, err = runCLI(t, "predict", "--model", nnModel, plain)
	if header, _, _ := strings.Cut(stdout, "\n"); err != nil || header != predictionsColumns || !strings.Contains(stderr, "predicted 1 descriptor with ") {
		t.Errorf("predict of an unlabelled image: %v\n%s%s", err, stdout, stderr)
	}
}

// TestFitCodesEncode fits a codes model, whose dictionary is made from
// its training images, predicts with it, and codes descriptors with it
// (encode --model): the codes are those of the model's own coder, one
// row per descriptor and a column per atom, and encode refuses a model
// that gives no vectors.
func TestFitCodesEncode(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	gratingClasses(t, train, 5, 1)
	gratingClasses(t, test, 3, 2)
	desc, testDesc := filepath.Join(dir, "desc"), filepath.Join(dir, "test-desc")
	for in, out := range map[string]string{train: desc, test: testDesc} {
		if _, stderr, err := runCLI(t, "describe", "--features", "texture", "--out", out, in); err != nil {
			t.Fatalf("describe: %v\n%s", err, stderr)
		}
	}
	codesModel := filepath.Join(dir, "codes")
	if _, _, err := runCLI(t, "fit", "--method", "codes", "--dictionary", "kmeans", "--sigma", "1", "--lambda-ratio", "0.1", "--out", codesModel, desc); err == nil || !strings.Contains(err.Error(), "--atoms") {
		t.Fatalf("fit codes without --atoms: %v, want an error naming --atoms", err)
	}
	if _, stderr, err := runCLI(t, "fit", "--method", "codes", "--dictionary", "kmeans", "--atoms", "4", "--sigma", "1", "--lambda-ratio", "0.1", "--out", codesModel, desc); err != nil {
		t.Fatalf("fit codes: %v\n%s", err, stderr)
	}
	csvOut := filepath.Join(dir, "codes.csv")
	if _, stderr, err := runCLI(t, "predict", "--model", codesModel, "--out", csvOut, testDesc); err != nil {
		t.Fatalf("predict: %v\n%s", err, stderr)
	}
	if rows := readPredictions(t, csvOut); len(rows) != 9 {
		t.Errorf("%d predictions, want 9", len(rows))
	}
	codesDir := filepath.Join(dir, "test-codes")
	if _, stderr, err := runCLI(t, "encode", "--model", codesModel, "--out", codesDir, testDesc); err != nil {
		t.Fatalf("encode --model: %v\n%s", err, stderr)
	}
	m, err := model.Load(codesModel)
	if err != nil {
		t.Fatal(err)
	}
	mats, err := store.ReadMatrices(testDesc)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSetFromData(mats.D, mats.Data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.TransformSet(context.Background(), set, 1)
	if err != nil {
		t.Fatal(err)
	}
	shape, got, err := store.ReadNPY(filepath.Join(codesDir, dictionary.CodesFile))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shape, []int{9, 4}) || !slices.Equal(got, want.RawMatrix().Data) {
		t.Errorf("codes of shape %v, %v; want (9, 4), %v", shape, got, want.RawMatrix().Data)
	}
	if _, err := os.Stat(filepath.Join(codesDir, store.ManifestFile)); err != nil {
		t.Errorf("the codes lost the descriptors' manifest: %v", err)
	}
	nnModel := filepath.Join(dir, "nn")
	if _, stderr, err := runCLI(t, "fit", "--method", "nn", "--out", nnModel, desc); err != nil {
		t.Fatalf("fit nn: %v\n%s", err, stderr)
	}
	if _, _, err := runCLI(t, "encode", "--model", nnModel, "--out", filepath.Join(dir, "nn-codes"), testDesc); err == nil || !strings.Contains(err.Error(), "gives no feature vectors") {
		t.Errorf("encode --model of nn: %v, want a refusal", err)
	}
	if _, _, err := runCLI(t, "fit", "--method", "nn", "--atoms", "3", "--out", filepath.Join(dir, "nn2"), desc); err == nil || !strings.Contains(err.Error(), "takes no atoms") {
		t.Errorf("fit nn --atoms: %v, want a refusal", err)
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

// TestFitLearnedDictionaries fits rsr on dictionaries that covpipe learn
// --class learned, one per class, and checks the model against one fitted
// on the descriptors themselves: dictionaries of every descriptor of
// their class (as many atoms as descriptors, no iteration, the scale
// kept) give the same labels, and learned dictionaries of fewer atoms
// label every image. A dictionary of every class is refused, and so is a
// class without descriptors.
func TestFitLearnedDictionaries(t *testing.T) {
	dir, train, test := gratingFolders(t, 6)
	desc := filepath.Join(dir, "desc")
	describeTexture(t, desc, train)
	// fitPredict fits rsr on inputs and returns its labels of test.
	fitPredict := func(name string, inputs []string) []string {
		t.Helper()
		m := filepath.Join(dir, name)
		stdout, stderr, err := runCLI(t, append([]string{"fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.1", "--out", m}, inputs...)...)
		if err != nil || !strings.Contains(stdout, "of 3 classes") {
			t.Fatalf("fit %s: %v\n%s%s", name, err, stdout, stderr)
		}
		out := filepath.Join(dir, name+".csv")
		if _, stderr, err := runCLI(t, "predict", "--model", m, "--out", out, test); err != nil {
			t.Fatalf("predict %s: %v\n%s", name, err, stderr)
		}
		var labels []string
		for _, r := range readPredictions(t, out) {
			labels = append(labels, r[2])
		}
		return labels
	}
	// learn learns a dictionary per class with the flags args.
	learn := func(name string, args ...string) []string {
		t.Helper()
		var dicts []string
		for _, class := range []string{"back", "flat", "steep"} {
			d := filepath.Join(dir, name+"-"+class)
			if _, stderr, err := runCLI(t, append([]string{"learn", "--class", class, "--sigma", "0.5", "--out", d, desc}, args...)...); err != nil {
				t.Fatalf("learn --class %s: %v\n%s", class, err, stderr)
			}
			dicts = append(dicts, d)
		}
		return dicts
	}
	want := fitPredict("direct", []string{desc})
	if got := fitPredict("whole", learn("whole", "--atoms", "6", "--iters", "1", "--keep-scale")); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("dictionaries of every descriptor label %q, the descriptors %q", got, want)
	}
	if got := fitPredict("learned", learn("learned", "--atoms", "3")); len(got) != 9 {
		t.Errorf("learned dictionaries: %d labels for 9 images", len(got))
	}
	all := filepath.Join(dir, "dict-all")
	if _, stderr, err := runCLI(t, "learn", "--atoms", "3", "--sigma", "0.5", "--out", all, desc); err != nil {
		t.Fatalf("learn: %v\n%s", err, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--method", "rsr", "--sigma", "0.5", "--lambda", "0.1", "--out", filepath.Join(dir, "m2"), all}, all + " was learned from every class: learn one dictionary per class (covpipe learn --class NAME)"},
		{[]string{"learn", "--class", "nosuch", "--atoms", "2", "--out", filepath.Join(dir, "d2"), desc}, `learn: --class nosuch: no descriptor of ` + desc + ` has label "nosuch" (it has 3 classes`},
	} {
		if _, _, err := runCLI(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestFitFusion fits a model of five regions per image with --fusion and
// checks that predict answers once per image, its region the whole
// image, and that fit says how it fused.
func TestFitFusion(t *testing.T) {
	dir, train, test := gratingFolders(t, 5)
	m := filepath.Join(dir, "model")
	stdout, stderr, err := runCLI(t, "fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.1", "--features", "texture",
		"--regions", "whole+grid:2x2", "--fusion", "sum,weighted", "--out", m, train)
	if err != nil || !strings.Contains(stdout, "5 regions fused by ") {
		t.Fatalf("fit --fusion: %v\n%s%s", err, stdout, stderr)
	}
	csvOut := filepath.Join(dir, "p.csv")
	if _, stderr, err := runCLI(t, "predict", "--model", m, "--out", csvOut, test); err != nil {
		t.Fatalf("predict: %v\n%s", err, stderr)
	}
	rows := readPredictions(t, csvOut)
	right := 0
	for _, r := range rows {
		if r[1] != "16x16+0+0" {
			t.Errorf("row %q: want the whole 16×16 image", r)
		}
		if filepath.Dir(r[0]) == r[2] {
			right++
		}
	}
	if len(rows) != 9 || right < 7 {
		t.Errorf("%d rows, %d right; want 9 rows (one per image), 7 or more right", len(rows), right)
	}
	// An image of another size has other cells than the training
	// images', 16×16 ones: refused, naming it.
	big := filepath.Join(dir, "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	pgm := append([]byte("P5\n32 32\n255\n"), make([]byte, 32*32)...)
	for i := range 32 * 32 {
		pgm[len(pgm)-32*32+i] = byte((i % 32) * 8)
	}
	if err := os.WriteFile(filepath.Join(big, "x.pgm"), pgm, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "predict", "--model", m, big); err == nil || !strings.Contains(err.Error(), "fuses the regions of its training images, whose region 0 is 16x16+0+0, but "+filepath.Join(big, "x.pgm")+"'s is 32x32+0+0") {
		t.Errorf("predict on a 32×32 image: %v, want a refusal naming its regions", err)
	}
	if _, _, err := runCLI(t, "fit", "--method", "nn", "--metric", "airm", "--features", "texture", "--regions", "whole+grid:2x2", "--fusion", "sum", "--out", filepath.Join(dir, "airm"), train); err == nil || !strings.Contains(err.Error(), "no class costs") {
		t.Errorf("fit --fusion with nn-airm: %v", err)
	}
}

// TestFitHelpListsParameters checks that fit has a flag for every
// parameter that every method type declares, whose help names the type,
// and that --method's help lists every type.
func TestFitHelpListsParameters(t *testing.T) {
	stdout, _, err := runCLI(t, "fit", "--help")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{} // flag name: its help line
	for _, l := range strings.Split(stdout, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && strings.HasPrefix(f[0], "-") {
			lines[strings.TrimLeft(strings.TrimSuffix(f[0], ","), "-")] = l
		}
	}
	if !strings.Contains(lines["method"], strings.Join(method.Names(), ", ")) {
		t.Errorf("--method's help does not list the method types %v:\n%s", method.Names(), lines["method"])
	}
	for _, typ := range method.Names() {
		for _, d := range method.Types()[typ].Parameters() {
			name := strings.ReplaceAll(d.Key, "_", "-")
			l, ok := lines[name]
			if !ok || !strings.Contains(l, d.Help) {
				l, ok = lines[typ+"-"+name] // a name taken by another flag
			}
			if !ok || !strings.Contains(l, d.Help) || !strings.Contains(l, typ) {
				t.Errorf("%s's parameter %s: no flag --%s with its help %q and type:\n%s", typ, d.Key, name, d.Help, l)
			}
			if d.Default != "" && !strings.Contains(l, "default "+d.Default) {
				t.Errorf("%s's parameter %s: the help of its flag does not give the default %q:\n%s", typ, d.Key, d.Default, l)
			}
		}
	}
}

// TestFitDefaults fits rsr with no parameter flags: σ is (d−1)/2 for the
// 5×5 texture descriptors and the sparsity weight the default ratio.
func TestFitDefaults(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train")
	gratingClasses(t, train, 4, 3)
	stdout, stderr, err := runCLI(t, "fit", "--method", "rsr", "--features", "texture", "--out", filepath.Join(dir, "m"), train)
	if err != nil || !strings.Contains(stdout, "fitted rsr on 5x5 descriptors") || !strings.Contains(stdout, "lambda_ratio=0.1 ") || !strings.Contains(stdout, "sigma=2)") {
		t.Fatalf("fit rsr without parameters: %v\n%s%s", err, stdout, stderr)
	}
}

// TestPredictWarnsOnTrainingImages checks that predict warns when it is
// given the images the model was fitted on, from the images or from
// their descriptors, and not for other images.
func TestPredictWarnsOnTrainingImages(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	gratingClasses(t, train, 4, 1)
	gratingClasses(t, test, 2, 2)
	m := filepath.Join(dir, "model")
	if _, stderr, err := runCLI(t, "fit", "--method", "nn", "--features", "texture", "--out", m, train); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr)
	}
	desc := filepath.Join(dir, "desc")
	if _, stderr, err := runCLI(t, "describe", "--features", "texture", "--out", desc, train); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	for _, tc := range []struct {
		input string
		warns bool
	}{{train, true}, {desc, true}, {test, false}} {
		_, stderr, err := runCLI(t, "predict", "--model", m, tc.input)
		if err != nil {
			t.Fatalf("predict %s: %v\n%s", tc.input, err, stderr)
		}
		if got := strings.Contains(stderr, "the images the model "+m+" was fitted on"); got != tc.warns {
			t.Errorf("predict %s: warned %v, want %v\n%s", tc.input, got, tc.warns, stderr)
		}
	}
}
