package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/browsertest"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

var htmlShots = flag.String("html-shots", "", "keep the browser's screenshots of report.html in `DIR` (run.png, evaluation.png)")

// cell is what a table cell of report.html must hold: the numbers, in
// order, each as printed from its value (within half a unit of its last
// digit), or, for a cell of text, its text.
type cell struct {
	nums []float64
	text string
}

// want is what the tables of a page must hold: for each table's key,
// each cell by its row's head and its column's.
type want map[string]map[[2]string]cell

func (w want) set(key, row, col string, c cell) {
	if w[key] == nil {
		w[key] = map[[2]string]cell{}
	}
	w[key][[2]string{row, col}] = c
}

func nums(v ...float64) cell { return cell{nums: v} }

// stat is a mean ± std cell of results.json, "–" for none.
func stat(s *struct{ Mean, Std float64 }) cell {
	if s == nil {
		return cell{text: "–"}
	}
	return nums(s.Mean, s.Std)
}

var numberRE = regexp.MustCompile(`[-+]?\d+(?:\.(\d+))?(?:[eE]([-+]?\d+))?`)

// checkTables checks that the tables of a page are those of w and hold
// its numbers: every table has a key of w, every cell under a column
// is one of w's for its row and column and holds its numbers (or its
// text), and every cell of w is on the page.
func checkTables(t *testing.T, page string, tables []browsertest.Table, w want) {
	t.Helper()
	seen := map[string]map[[2]string]bool{}
	for _, tb := range tables {
		cells, ok := w[tb.Key]
		if !ok {
			t.Errorf("%s: a table keyed %q, want one of the tables of the results", page, tb.Key)
			continue
		}
		if seen[tb.Key] != nil {
			t.Errorf("%s: two tables keyed %q", page, tb.Key)
		}
		seen[tb.Key] = map[[2]string]bool{}
		if len(tb.Header) != 1 {
			t.Errorf("%s: table %s has %d header rows", page, tb.Key, len(tb.Header))
			continue
		}
		for _, row := range slices.Concat(tb.Rows, tb.Foot) {
			for j := 1; j < len(row); j++ {
				k := [2]string{row[0], tb.Header[0][j]}
				c, ok := cells[k]
				if !ok {
					t.Errorf("%s: table %s: cell %q at row %q, column %q is none of the results'", page, tb.Key, row[j], k[0], k[1])
					continue
				}
				seen[tb.Key][k] = true
				checkCell(t, fmt.Sprintf("%s: table %s, row %q, column %q", page, tb.Key, k[0], k[1]), row[j], c)
			}
		}
	}
	for key, cells := range w {
		for k := range cells {
			if !seen[key][k] {
				t.Errorf("%s: table %s has no cell at row %q, column %q", page, key, k[0], k[1])
			}
		}
	}
}

// checkCell checks that text shows c.
func checkCell(t *testing.T, where, text string, c cell) {
	t.Helper()
	if c.nums == nil {
		if text != c.text {
			t.Errorf("%s: %q, want %q", where, text, c.text)
		}
		return
	}
	got := numberRE.FindAllStringSubmatch(text, -1)
	if len(got) != len(c.nums) {
		t.Errorf("%s: %q holds %d numbers, want %v", where, text, len(got), c.nums)
		return
	}
	for i, m := range got {
		v, err := strconv.ParseFloat(m[0], 64)
		exp, _ := strconv.Atoi(m[2])
		if half := 0.5 * math.Pow(10, float64(exp-len(m[1]))); err != nil || !(math.Abs(v-c.nums[i]) <= half*(1+1e-9)) {
			t.Errorf("%s: %q shows %s for %v", where, text, m[0], c.nums[i])
		}
	}
}

// runWant is what report.html of the results.json at path must show,
// read from the file as it is: the accuracy and energy tables (a row
// per method, a column per task, and the seconds each method ran), the
// open-set table of each task (a row per method), the CMC of each task
// (a row per method, a column per rank) and the energy curve of each
// task (a row per iteration, a column per method).
func runWant(t *testing.T, path string) want {
	t.Helper()
	type meanStd = *struct{ Mean, Std float64 }
	var r struct {
		Results []struct {
			Task, Method, Kind string
			AccuracyMean       float64   `json:"accuracy_mean"`
			AccuracyStd        float64   `json:"accuracy_std"`
			Seconds            float64   `json:"seconds"`
			CMC                []float64 `json:"cmc_mean"`
			CMCStd             []float64 `json:"cmc_std"`
			Energy             []float64 `json:"energy_mean"`
			EnergyStd          []float64 `json:"energy_std"`
			FinalEnergy        float64   `json:"final_energy_mean"`
			FinalEnergyStd     float64   `json:"final_energy_std"`
			Rejection          string    `json:"rejection"`
			FAR                float64   `json:"far"`
			AUC                meanStd   `json:"auc"`
			TAR                meanStd   `json:"tar_at_far"`
			Identification     meanStd   `json:"identification_at_far"`
			Thresholds         []float64 `json:"threshold_runs"`
		}
	}
	readJSON(t, path, &r)
	w := want{}
	tasks, methods := map[string][]string{}, map[string][]string{}
	seconds := map[[2]string]float64{}
	for _, x := range r.Results {
		kind := x.Kind
		if kind == "" {
			kind = "accuracy"
		}
		if !slices.Contains(tasks[kind], x.Task) {
			tasks[kind] = append(tasks[kind], x.Task)
		}
		if !slices.Contains(methods[kind], x.Method) {
			methods[kind] = append(methods[kind], x.Method)
		}
		seconds[[2]string{kind, x.Method}] += x.Seconds
		switch kind {
		case "accuracy":
			w.set(kind, x.Method, x.Task, nums(x.AccuracyMean, x.AccuracyStd))
			for k := range x.CMC {
				w.set("cmc:"+x.Task, x.Method, strconv.Itoa(k+1), nums(x.CMC[k], x.CMCStd[k]))
			}
		case "energy":
			w.set(kind, x.Method, x.Task, nums(x.FinalEnergy, x.FinalEnergyStd))
			for k := range x.Energy {
				w.set("energy-curve:"+x.Task, strconv.Itoa(k), x.Method, nums(x.Energy[k], x.EnergyStd[k]))
			}
		case "open-set":
			key, far := "open-set:"+x.Task, strconv.FormatFloat(x.FAR, 'g', -1, 64)
			var th float64
			for _, v := range x.Thresholds {
				th += v / float64(len(x.Thresholds))
			}
			w.set(key, x.Method, "rejects by", cell{text: x.Rejection})
			w.set(key, x.Method, "AUC", stat(x.AUC))
			w.set(key, x.Method, "TAR at "+far+"% FAR", stat(x.TAR))
			w.set(key, x.Method, "identified at "+far+"% FAR", stat(x.Identification))
			w.set(key, x.Method, "threshold", nums(th))
			w.set(key, x.Method, "accuracy, known items", nums(x.AccuracyMean, x.AccuracyStd))
		}
	}
	for _, kind := range []string{"accuracy", "energy"} {
		for _, m := range methods[kind] {
			for _, task := range tasks[kind] {
				if _, ok := w[kind][[2]string{m, task}]; !ok {
					w.set(kind, m, task, cell{text: "–"})
				}
			}
			w.set(kind, m, "run time (s)", nums(seconds[[2]string{kind, m}]))
		}
	}
	// Series shorter than their table's first have "–" past their end.
	for key, cells := range w {
		if !strings.HasPrefix(key, "cmc:") && !strings.HasPrefix(key, "energy-curve:") {
			continue
		}
		var rows, cols []string
		for k := range cells {
			rows, cols = append(rows, k[0]), append(cols, k[1])
		}
		for _, row := range rows {
			for _, col := range cols {
				if _, ok := cells[[2]string{row, col}]; !ok {
					cells[[2]string{row, col}] = cell{text: "–"}
				}
			}
		}
	}
	return w
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkPage checks what report.html in dir holds besides its tables:
// nothing it would fetch or link to, and figures that are the folder's
// PNG files, byte for byte, all of them.
func checkPage(t *testing.T, dir string) string {
	t.Helper()
	b, err := store.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if a := browsertest.Addresses(doc); len(a) > 0 {
		t.Errorf("%s/report.html fetches or links %q", dir, a)
	}
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`).MatchString(doc) {
		t.Errorf("%s/report.html has an external address", dir)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	imgs := regexp.MustCompile(`<img src="data:image/png;base64,([^"]*)" alt="([^"]*)"`).FindAllStringSubmatch(doc, -1)
	if len(imgs) != len(pngs) {
		t.Errorf("%s/report.html shows %d figures, the folder has %d", dir, len(imgs), len(pngs))
	}
	for _, m := range imgs {
		inline, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1])) // html/template writes + as &#43;
		file, _ := os.ReadFile(filepath.Join(dir, m[2]))
		if err != nil || len(file) == 0 || !bytes.Equal(inline, file) {
			t.Errorf("%s/report.html: figure %s is not the folder's (%v)", dir, m[2], err)
		}
	}
	return doc
}

// TestReportHTMLRun writes report.html of each results.json of
// experiment/report's fixtures with covpipe report --html and checks that
// its tables hold results.json's numbers and nothing else, its figures
// are the folder's and it links to nothing; that covpipe run --html
// writes the page report --html rewrites; and report's errors.
func TestReportHTMLRun(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"accuracy", "cmc", "energy", "mixed", "openset"} {
		fixture := filepath.Join("..", "..", "experiment", "report", "testdata", name+".json")
		out := filepath.Join(dir, name)
		stdout, stderr, err := runCLI(t, "report", "--html", fixture, "--out", out)
		if err != nil || !strings.Contains(stdout, "report written to "+filepath.Join(out, "summary.md")+" and "+filepath.Join(out, "report.html")) {
			t.Fatalf("report --html %s: %v\n%s%s", fixture, err, stdout, stderr)
		}
		set, err := store.OpenSet(out, store.FormatRun)
		if err != nil || !set.Has("report.html") {
			t.Errorf("%s: report.html is not of the folder's set: %v", name, err)
		}
		doc := checkPage(t, out)
		checkTables(t, name, browsertest.Tables(doc), runWant(t, fixture))
	}
	// run --html writes what report --html writes of its folder; report
	// without --html leaves it out of the new set.
	_, cfg := writeTinyConfig(t)
	out := filepath.Join(dir, "tiny")
	if _, stderr, err := runCLI(t, "run", cfg, "--html", "--out", out); err != nil {
		t.Fatalf("run --html: %v\n%s", err, stderr)
	}
	first := checkPage(t, out)
	checkTables(t, "tiny", browsertest.Tables(first), runWant(t, filepath.Join(out, "results.json")))
	if _, stderr, err := runCLI(t, "report", "--html", out); err != nil {
		t.Fatalf("report --html: %v\n%s", err, stderr)
	}
	if again := checkPage(t, out); again != first {
		t.Error("report --html of a run's folder differs from run --html's page")
	}
	if _, _, err := runCLI(t, "report", out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err == nil {
		t.Error("report without --html left report.html")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--html", dir}, dir + " holds neither a results.json nor an evaluation.json: give the output folder of covpipe run or of covpipe evaluate"},
		{[]string{"run", cfg, "--html", "--shard", "1/2", "--out", filepath.Join(dir, "s")}, "run: --html with --shard"},
	} {
		if _, _, err := runCLI(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// evaluationWant is what report.html of the evaluation.json at path
// must show, read from the file as it is, and its AUC.
func evaluationWant(t *testing.T, path string) (want, *float64) {
	t.Helper()
	var e struct {
		Items, Correct int
		Accuracy       float64
		CI             struct{ Low, High float64 } `json:"accuracy_ci95"`
		Classes        []struct {
			Class                       string
			Support, Predicted, Correct int
			Precision, Recall, F1       float64
		}
		Macro     struct{ Precision, Recall, F1 float64 }
		Confusion struct {
			True, Predicted []string
			Counts          [][]int
		}
		Unknown        int      `json:"unknown_items"`
		UnknownClasses []string `json:"unknown_classes"`
		OpenSet        *struct {
			Threshold          float64
			Accepted, Rejected int
			RejectionRate      float64                     `json:"rejection_rate"`
			AcceptedCorrect    int                         `json:"accepted_correct"`
			AcceptedAccuracy   float64                     `json:"accepted_accuracy"`
			AcceptedCI         struct{ Low, High float64 } `json:"accepted_accuracy_ci95"`
			Known, Unknown     int
			KnownAccepted      float64 `json:"known_accepted_rate"`
			UnknownAccepted    float64 `json:"unknown_accepted_rate"`
			Identification     float64 `json:"identification_rate"`
		} `json:"open_set"`
		ROC           *struct{ AUC float64 }
		Misclassified []struct {
			Name, True, Predicted string
			Score                 *float64
		}
	}
	readJSON(t, path, &e)
	w := want{}
	count := func(n int) cell { return nums(float64(n)) }
	for _, r := range []struct {
		row string
		c   cell
	}{
		{"items", count(e.Items)}, {"answered right", count(e.Correct)}, {"accuracy (%)", nums(e.Accuracy)},
		{"95% interval (Wilson, %)", nums(e.CI.Low, e.CI.High)}, {"classes", count(len(e.Classes))},
		{"macro precision (%)", nums(e.Macro.Precision)}, {"macro recall (%)", nums(e.Macro.Recall)}, {"macro F1 (%)", nums(e.Macro.F1)},
	} {
		w.set("summary", r.row, "value", r.c)
	}
	if e.Unknown > 0 {
		w.set("summary", "items of unknown classes", "value", count(e.Unknown))
		w.set("summary", "unknown classes", "value", cell{text: strings.Join(e.UnknownClasses, ", ")})
	}
	if o := e.OpenSet; o != nil {
		for _, r := range []struct {
			row string
			c   cell
		}{
			{"threshold", nums(o.Threshold)}, {"accepted", count(o.Accepted)}, {"rejected", count(o.Rejected)},
			{"rejection rate (%)", nums(o.RejectionRate)}, {"accepted and right", count(o.AcceptedCorrect)},
			{"accuracy of the accepted (%)", nums(o.AcceptedAccuracy)}, {"95% interval (Wilson, %)", nums(o.AcceptedCI.Low, o.AcceptedCI.High)},
			{"known items", count(o.Known)}, {"unknown items", count(o.Unknown)}, {"known accepted (%)", nums(o.KnownAccepted)},
			{"unknown accepted (%)", nums(o.UnknownAccepted)}, {"identification (%)", nums(o.Identification)},
		} {
			w.set("open-set", r.row, "value", r.c)
		}
	}
	for _, c := range e.Classes {
		for col, v := range map[string]float64{"items": float64(c.Support), "answered": float64(c.Predicted), "right": float64(c.Correct),
			"precision (%)": c.Precision, "recall (%)": c.Recall, "F1 (%)": c.F1} {
			w.set("classes", c.Class, col, nums(v))
		}
	}
	for i, tr := range e.Confusion.True {
		for j, p := range e.Confusion.Predicted {
			w.set("confusion", tr, p, count(e.Confusion.Counts[i][j]))
		}
	}
	for _, m := range e.Misclassified {
		w.set("misclassified", m.Name, "true", cell{text: m.True})
		w.set("misclassified", m.Name, "answered", cell{text: m.Predicted})
		score := cell{text: "–"}
		if m.Score != nil {
			score = nums(*m.Score)
		}
		w.set("misclassified", m.Name, "score", score)
	}
	if e.ROC == nil {
		return w, nil
	}
	return w, &e.ROC.AUC
}

// checkAUC checks the AUC that doc's text gives.
func checkAUC(t *testing.T, doc string, auc *float64) {
	t.Helper()
	m := regexp.MustCompile(`AUC (\S+)\.</p>`).FindStringSubmatch(doc)
	switch {
	case auc == nil && m != nil:
		t.Errorf("an AUC %s without an ROC", m[1])
	case auc != nil && m == nil:
		t.Errorf("no AUC; evaluation.json's is %v", *auc)
	case auc != nil:
		checkCell(t, "AUC", m[1], nums(*auc))
	}
}

// htmlEvaluation fits a model on gratings of three classes and evaluates it
// with --html and --reject on test gratings of those and of a class it
// does not know, into dir/eval.
func htmlEvaluation(t *testing.T) (dir, out string) {
	t.Helper()
	dir, train, test := gratingFolders(t, 4)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 3 {
		imagetest.Write(t, filepath.Join(test, "diag", strconv.Itoa(i)+".png"), imagetest.Grating(rng, 16, 16, math.Pi/6, 4+rng.Float64(), 0.15))
	}
	m := filepath.Join(dir, "model")
	if _, stderr, err := runCLI(t, "fit", "--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.05", "--features", "texture", "--out", m, train); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr)
	}
	out = filepath.Join(dir, "eval")
	if _, stderr, err := runCLI(t, "evaluate", "--model", m, "--reject", "0.3", "--montage", "6", "--html", "--out", out, test); err != nil {
		t.Fatalf("evaluate --html: %v\n%s", err, stderr)
	}
	return dir, out
}

// TestReportHTMLEvaluation checks report.html of an evaluation with
// unknown classes and rejection, as evaluate --html writes it: its
// tables hold evaluation.json's numbers and nothing else, its figures
// are the folder's (the confusion matrix, the ROC, the montage of
// misclassified images); covpipe report --html rewrites the same page,
// in the folder as a new set of the same files or into --out DIR; and
// report's errors for an evaluation.
func TestReportHTMLEvaluation(t *testing.T) {
	dir, out := htmlEvaluation(t)
	doc := checkPage(t, out)
	w, auc := evaluationWant(t, filepath.Join(out, "evaluation.json"))
	checkTables(t, "evaluation", browsertest.Tables(doc), w)
	checkAUC(t, doc, auc)
	for _, f := range []string{"confusion.png", "roc.png", "misclassified.png"} {
		if !strings.Contains(doc, `alt="`+f+`"`) {
			t.Errorf("report.html does not show %s", f)
		}
	}
	before, err := store.OpenSet(out, store.FormatEvaluation)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	for _, args := range [][]string{{"report", "--html", out}, {"report", "--html", filepath.Join(out, "evaluation.json"), "--out", other}} {
		stdout, stderr, err := runCLI(t, args...)
		target := args[len(args)-1]
		if len(args) == 3 {
			target = out
		}
		if err != nil || !strings.Contains(stdout, "report written to "+filepath.Join(target, "report.html")) {
			t.Fatalf("%v: %v\n%s%s", args, err, stdout, stderr)
		}
		if again := checkPage(t, target); again != doc {
			t.Errorf("%v: report.html differs from evaluate --html's", args)
		}
		after, err := store.OpenSet(target, store.FormatEvaluation)
		if err != nil || !slices.Equal(after.Files, before.Files) {
			t.Errorf("%v: the set %+v, want %+v (%v)", args, after, before.Files, err)
		}
	}
	if _, _, err := runCLI(t, "report", out); err == nil || !strings.Contains(err.Error(), "give --html to write its report.html") {
		t.Errorf("report of an evaluation without --html: %v", err)
	}
	bare := filepath.Join(dir, "torn")
	if err := os.MkdirAll(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bare, "evaluation.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "report", "--html", bare); err == nil || !strings.Contains(err.Error(), "no meta.json") {
		t.Errorf("report of a folder that is not an evaluation's set: %v", err)
	}
}

// TestReportHTMLInBrowser opens report.html of a re-identification run
// (CMC curves, experiment/report's cmc.json fixture) and of an evaluation
// in headless Chromium: the console stays silent (no script error, no
// fetch refused), the tables of the DOM once the page's script ran hold
// the numbers of results.json and evaluation.json, and the screenshot
// is a picture, not a blank page. -html-shots DIR keeps the
// screenshots. It is skipped without Chromium.
func TestReportHTMLInBrowser(t *testing.T) {
	browsertest.Chromium(t)
	shots := *htmlShots
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join("..", "..", "experiment", "report", "testdata", "cmc.json")
	run := filepath.Join(t.TempDir(), "run")
	if _, stderr, err := runCLI(t, "report", "--html", fixture, "--out", run); err != nil {
		t.Fatalf("report --html: %v\n%s", err, stderr)
	}
	runW := runWant(t, fixture)
	_, eval := htmlEvaluation(t)
	evalW, auc := evaluationWant(t, filepath.Join(eval, "evaluation.json"))
	for _, tc := range []struct {
		name, dir string
		want      want
		height    int
	}{
		{"run", run, runW, 2400},
		{"evaluation", eval, evalW, 3600},
	} {
		shot := filepath.Join(shots, tc.name+".png")
		p := browsertest.Open(t, filepath.Join(tc.dir, "report.html"), 1280, tc.height, shot)
		if len(p.Console) > 0 {
			t.Errorf("%s: console:\n%s", tc.name, strings.Join(p.Console, "\n"))
		}
		checkTables(t, tc.name+" in the browser", browsertest.Tables(p.DOM), tc.want)
		if tc.name == "evaluation" {
			checkAUC(t, p.DOM, auc)
		}
		checkShot(t, shot, 1280, tc.height)
	}
}

// checkShot checks that shot is a width×height PNG of a page with
// figures: hundreds of colours, not one.
func checkShot(t *testing.T, shot string, width, height int) {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", shot, err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Errorf("%s: %v, want %dx%d", shot, b, width, height)
	}
	colours := map[[4]uint32]bool{}
	for y := 0; y < height; y += 3 {
		for x := 0; x < width; x += 3 {
			r, g, b, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, b, a}] = true
		}
	}
	if len(colours) < 200 {
		t.Errorf("%s: %d colours, a blank page or one without figures", shot, len(colours))
	}
}
