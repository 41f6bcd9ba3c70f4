package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/urfave/cli/v2"
)

const tinyConfig = `
name: tiny
seed: 3
repeats: 2
tasks:
  - name: easy
    synthetic: {classes: 3, dim: 3, samples: 48, train: 0.5, spread: 1, variance: 0.5}
methods:
  - name: rsr
    sigma: 1
    lambda: 0.05
  - {name: nn-stein, type: nn, metric: stein}
`

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"covpipe"}, args...), &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// writeTinyConfig writes tinyConfig into a new folder and returns the
// folder and the config's path.
func writeTinyConfig(t *testing.T) (dir, cfg string) {
	t.Helper()
	dir = t.TempDir()
	cfg = filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(cfg, []byte(tinyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// tinyRun runs tinyConfig into the folder results of a new folder and
// returns both folders.
func tinyRun(t *testing.T) (dir, out string) {
	t.Helper()
	dir, cfg := writeTinyConfig(t)
	out = filepath.Join(dir, "results")
	if _, stderr, err := runCLI(t, "run", cfg, "--out", out); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	return dir, out
}

func TestRunCommand(t *testing.T) {
	dir, cfg := writeTinyConfig(t)
	out := filepath.Join(dir, "results")
	stdout, stderr, err := runCLI(t, "run", cfg, "--out", out, "--repeats", "3", "--workers", "2", "--seed", "9", "--memprofile", filepath.Join(dir, "mem.prof"))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "| easy |") || !strings.Contains(stdout, "over 3 repeats") {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, f := range []string{"results.json", "summary.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if !strings.Contains(string(b), `"seed": 9`) || !strings.Contains(string(b), `"repeats": 3`) {
		t.Error("flags did not override the config in results.json")
	}
	if !strings.Contains(stderr, "level=INFO") {
		t.Errorf("no progress log lines on a non-terminal stderr:\n%s", stderr)
	}
	if st, err := os.Stat(filepath.Join(dir, "mem.prof")); err != nil || st.Size() == 0 {
		t.Errorf("--memprofile: %v", err)
	}
	// --methods keeps the named methods only.
	stdout, _, err = runCLI(t, "run", cfg, "--out", out, "--repeats", "1", "--methods", "nn-stein")
	if err != nil || strings.Contains(stdout, "| rsr") || !strings.Contains(stdout, "nn-stein") {
		t.Errorf("--methods nn-stein: %v\n%s", err, stdout)
	}
	// The plan's warnings (a deprecated metric name) go to the log.
	deprecated := filepath.Join(dir, "deprecated.yaml")
	if err := os.WriteFile(deprecated, []byte(strings.Replace(tinyConfig, "metric: stein", "metric: logeuclid", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runCLI(t, "run", deprecated, "--out", out, "--repeats", "1", "--methods", "nn-stein")
	if err != nil || !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, `\"logeuclid\" is deprecated`) {
		t.Errorf("deprecated metric: %v\n%s", err, stderr)
	}
}

// TestReportCommand checks that covpipe report rewrites summary.md from
// results.json alone, the same as the run wrote, and reads energy curves
// recorded in the first results.json layout.
func TestReportCommand(t *testing.T) {
	dir, out := tinyRun(t)
	again := filepath.Join(dir, "again")
	stdout, _, err := runCLI(t, "report", filepath.Join(out, "results.json"), "--out", again)
	if err != nil || !strings.Contains(stdout, "tiny: accuracy % (mean ± std over 2 repeats)") || !strings.Contains(stdout, "| easy |") {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	first, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	second, err := os.ReadFile(filepath.Join(again, "summary.md"))
	if err != nil || string(first) != string(second) {
		t.Errorf("summary.md rewritten as\n%s\nwritten by run as\n%s", second, first)
	}
	old := filepath.Join(dir, "old")
	stdout, _, err = runCLI(t, "report", filepath.Join("..", "..", "experiment", "results", "testdata", "results-v1-energy.json"), "--out", old)
	if err != nil || !strings.Contains(stdout, "representation energy J (Eqn. 10)") || !strings.Contains(stdout, "| fig7 | 61.5 ± 0.71 |") {
		t.Errorf("report of the first layout: %v\n%s", err, stdout)
	}
	if _, err := os.Stat(filepath.Join(old, "energy-fig7.png")); err != nil {
		t.Errorf("energy figure: %v", err)
	}
	// The run's folder stands for its results.json.
	stdout, _, err = runCLI(t, "report", out)
	if b, _ := os.ReadFile(filepath.Join(out, "summary.md")); err != nil || string(b) != string(first) || !strings.Contains(stdout, "report written to "+filepath.Join(out, "summary.md")) {
		t.Errorf("report OUT: %v\n%s", err, stdout)
	}
	// An energy run's summary says what it measures: no accuracies.
	if b, _ := os.ReadFile(filepath.Join(old, "summary.md")); strings.Contains(strings.ToLower(string(b)), "accuracy") {
		t.Errorf("energy summary.md speaks of accuracy:\n%s", b)
	}
	if _, _, err := runCLI(t, "report", filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing results: %v", err)
	}
}

// TestRunCommandErrors is the table of the command line's errors: each is
// one line naming what is wrong, and where a flag or a config key would
// help, naming it; no command prints its help for a bad flag.
func TestRunCommandErrors(t *testing.T) {
	dir := t.TempDir()
	config := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bad := config("bad.yaml", strings.Replace(tinyConfig, "lambda: 0.05", "lamda: 0.05", 1))
	five := config("five.yaml", strings.Replace(tinyConfig, "repeats: 2", "repeats: five", 1))
	frac := config("frac.yaml", strings.Replace(tinyConfig, "repeats: 2", "repeats: 5.9", 1))
	// An image dataset under the data root: classes of 3 images, and one
	// with an image that does not decode.
	data := filepath.Join(dir, "data")
	rng := rand.New(rand.NewPCG(5, 6))
	for _, class := range []string{"d/cats", "d/dogs", "withbad/cats", "withbad/dogs"} {
		noisePNGs(t, rng, filepath.Join(data, class), 3)
	}
	foldertest.WriteFile(t, filepath.Join(data, "withbad", "dogs", "z.png"), []byte("not a png"))
	overData := func(name, dataset, split string) string {
		return config(name, "name: t\nseed: 1\nrepeats: 1\ndata: {dataset: \""+dataset+"\", features: \"I,Ix,Iy\"}\n"+
			"tasks:\n  - {name: t, split: "+split+"}\nmethods:\n  - {name: nn, type: nn, metric: stein}\n")
	}
	tpcFrac := overData("tpc.yaml", "d", "{train_per_class: 4.5}")
	short := overData("short.yaml", "d", "{train_per_class: 3}")
	noFolder := overData("nofolder.yaml", "folders:orl", "{train_per_class: 1}")
	withBad := overData("withbad.yaml", "withbad", "{train_per_class: 1}")
	// Images describe refuses, and descriptors to learn from.
	empty := filepath.Join(dir, "empty")
	noisePNGs(t, rng, empty, 2)
	foldertest.WriteFile(t, filepath.Join(empty, "c.png"), nil)
	good := filepath.Join(dir, "good.yaml")
	desc := filepath.Join(dir, "desc")
	if _, stderr, err := runCLI(t, "describe", "--out", desc, filepath.Join(data, "d")); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	fitted := filepath.Join(dir, "model")
	if _, stderr, err := runCLI(t, "fit", "--method", "nn", "--metric", "stein", "--features", "I,Ix,Iy", "--out", fitted, filepath.Join(data, "d")); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr)
	}
	colour := filepath.Join(dir, "colour-model")
	if _, stderr, err := runCLI(t, "fit", "--method", "nn", "--metric", "stein", "--features", "R,G,B", "--out", colour, filepath.Join(data, "d")); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr)
	}
	grey := filepath.Join(dir, "grey", "g.png")
	imagetest.Write(t, grey, imagetest.NoiseGray(rng, 8, 8))
	// Descriptors of the model's features made with another ridge and
	// another size.
	otherwise := filepath.Join(dir, "otherwise")
	if _, stderr, err := runCLI(t, "describe", "--features", "I,Ix,Iy", "--ridge", "0.5", "--ridge-kind", "ridge", "--resize", "8x12", "--out", otherwise, filepath.Join(data, "d")); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	shard := filepath.Join(dir, "shard")
	if _, stderr, err := runCLI(t, "describe", "--shard", "0/2", "--out", shard, filepath.Join(data, "d")); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}

	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "want exactly one CONFIG"},
		{[]string{"run", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"run", bad}, `unknown key "lamda"`},
		{[]string{"run", bad, "--repeats", "0"}, `unknown key "lamda"`},
		{[]string{"run", "--bogus", bad}, "run: flag provided but not defined: -bogus (see covpipe run --help)"},
		{[]string{"report", "--bogus", bad}, "report: flag provided but not defined: -bogus (see covpipe report --help)"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus (see covpipe help)"},
		{[]string{"nosuch"}, `no command "nosuch"`},
		// A type error names the key and its line; a fraction where an
		// integer is wanted is refused, not truncated.
		{[]string{"run", five}, `line 4: repeats: want an integer, got "five"`},
		{[]string{"run", frac}, "line 4: repeats: want an integer, got 5.9"},
		{[]string{"run", tpcFrac, "--data", data}, `task "t": line 6: train_per_class: want an integer, got 4.5`},
		// A missing folders: dataset names the folder expected.
		{[]string{"run", noFolder, "--data", data, "--no-cache"}, fmt.Sprintf(`dataset "folders:orl": %s not found (data root %q): expected one folder per class`, filepath.Join(data, "orl"), data)},
		// A class left nothing to test on is named, with its size.
		{[]string{"run", short, "--data", data, "--no-cache"}, `task "t": split: train_per_class is 3 but 2 classes have 3 or fewer (the smallest, "cats", has 3), which would leave nothing to test on: lower train_per_class, or add short_classes: train-all-but-one`},
		{[]string{"run", withBad, "--data", data, "--no-cache"}, "z.png: image: unknown format; supported formats: bmp, gif, jpeg, pam, pbm, pgm, png, ppm, tiff (data.skip_bad: true leaves out the images that fail)"},
		// describe: an empty file, a decode error suggesting --skip-bad, a
		// grid that does not divide the images suggesting --resize.
		{[]string{"describe", "--out", filepath.Join(dir, "o1"), empty}, "load " + filepath.Join(empty, "c.png") + ": empty file (0 bytes) (--skip-bad lists failing images in failures.csv and goes on)"},
		{[]string{"describe", "--out", filepath.Join(dir, "o2"), filepath.Join(data, "withbad")}, "z.png: image: unknown format; supported formats: bmp, gif, jpeg, pam, pbm, pgm, png, ppm, tiff (--skip-bad lists failing images in failures.csv and goes on)"},
		{[]string{"describe", "--out", filepath.Join(dir, "o3"), "--regions", "grid:5x5", filepath.Join(data, "d")}, "grid 5x5 does not divide the 16x24 image into equal regions (width must be a multiple of 5 columns, height of 5 rows); resize the images to a size the grid divides, such as 15x25 (--resize 15x25, data.resize: 15x25, Options.Width and Height)"},
		{[]string{"merge", "--out", filepath.Join(dir, "o4"), shard}, "merge: missing shard 1/2 (got 1 of 2 shards)"},
		// learn: --atoms is required; a σ outside Theorem 1 names the flag
		// that allows it.
		{[]string{"learn", "--out", filepath.Join(dir, "o5"), desc}, "learn: --atoms N, the dictionary size, is required"},
		{[]string{"learn", "--atoms", "2", "--sigma", "0.7", "--out", filepath.Join(dir, "o5"), desc}, "or allow a pseudo-kernel (--pseudo-kernel)"},
		{[]string{"report", dir}, "report: " + dir + " holds neither a results.json nor an evaluation.json: give the output folder of covpipe run or of covpipe evaluate"},
		// fit and predict: what is required, what does not go together,
		// and a model refusing descriptors made otherwise, naming both.
		{[]string{"fit", "--out", filepath.Join(dir, "o6"), desc}, "fit: --method NAME is required"},
		// Every required parameter not given is named at once, by flag;
		// a flag is read as the type declares its parameter.
		{[]string{"fit", "--method", "stein-svm", "--kernel", "log-euclidean", "--out", filepath.Join(dir, "o6"), desc}, "fit --method stein-svm: missing --sigma, --c"},
		{[]string{"fit", "--method", "codes", "--out", filepath.Join(dir, "o6"), desc}, "fit --method codes: missing --dictionary, --sigma, --lambda or --lambda-ratio"},
		{[]string{"fit", "--method", "nn", "--sigma", "1", "--out", filepath.Join(dir, "o6"), desc}, "fit --method nn: --sigma is not a parameter of method type nn (the types that take it: codes, rlpp, rsr, stein-svm)"},
		{[]string{"fit", "--method", "rsr", "--sigma", "0.5,x", "--out", filepath.Join(dir, "o6"), desc}, `fit --method rsr: --sigma "0.5,x": want a number or comma-separated numbers`},
		{[]string{"fit", "--method", "tsc", "--lambda", "0.1", "--working-set", "2.5", "--out", filepath.Join(dir, "o6"), desc}, `--working-set "2.5": want an integer`},
		{[]string{"fit", "--method", "no-such-method", "--out", filepath.Join(dir, "o6"), desc}, `fit: --method "no-such-method": want one of codes, fgmdm, gsr`},
		{[]string{"fit", "--method", "rsr", "--config", good, "--sigma", "1", "--out", filepath.Join(dir, "o6"), desc}, "fit: --sigma with --config " + good},
		{[]string{"fit", "--method", "nn", "--metric", "airm", "--where", "pose=ba", "--out", filepath.Join(dir, "o6"), desc}, "fit: --where selects images, not the descriptors of describe folders"},
		{[]string{"fit", "--method", "nn", "--metric", "airm", "--where", "pose=ba", "--out", filepath.Join(dir, "o6"), filepath.Join(data, "d")}, `has no metadata "pose"`},
		{[]string{"fit", "--method", "rsr", "--sigma", "0.7", "--lambda", "0.1", "--out", filepath.Join(dir, "o6"), desc}, "sigma"},
		{[]string{"fit", "--method", "rsr", "--sigma", "0.5", "--lambda", "0.1,0.2", "--folds", "1000000000", "--out", filepath.Join(dir, "o6"), desc}, "fit: model: folds: 1000000000 cross-validation folds of 6 training items keep their items' indices, about 89.4 GiB, over the memory limit of 4 GiB: lower folds, or raise the limit (model.Options.MaxMemory, covpipe fit --max-memory)"},
		{[]string{"predict", desc}, "predict: --model DIR is required"},
		{[]string{"predict", "--model", desc, desc}, "predict: load model: "},
		{[]string{"predict", "--model", fitted, "--reject", "-1", desc}, "predict: --reject: model: rejection threshold -1: want a confidence in [0, 1], where the SCI and the scores lie (0: reject nothing)"},
		{[]string{"predict", "--model", fitted, "--reject", "NaN", desc}, "predict: --reject: model: rejection threshold NaN: want a confidence in [0, 1]"},
		{[]string{"predict", "--model", fitted, "--reject", "1.5", desc}, "predict: --reject: model: rejection threshold 1.5: want a confidence in [0, 1]"},
		{[]string{"predict", "--model", colour, filepath.Dir(grey)}, "predict: model " + colour + " takes colour features (R,G,B), but " + grey + " is a grey image"},
		// Every option that differs is named, readably, and so is the
		// folder given (not the images behind it).
		{[]string{"predict", "--model", fitted, otherwise}, "predict: model " + fitted + " was fitted on descriptors made otherwise than the descriptors of " + otherwise + ": ridge ridge 0.5, the model's trace-ridge 0.0001; resize 8x12, the model's none: describe them with the model's options"},
		{[]string{"predict", "--model", fitted, "--out", filepath.Join(dir, "pred.txt"), desc}, "predict: --out " + filepath.Join(dir, "pred.txt") + ": want a FILE ending in .csv or a folder DIR"},
		// A number flag given what it does not take says what it wants.
		{[]string{"fit", "--method", "codes", "--atoms", "4.5", "--out", filepath.Join(dir, "o6"), desc}, "fit: --atoms 4.5: want a whole number (see covpipe fit --help)"},
		{[]string{"fit", "--method", "nn", "--seed", "-1", "--out", filepath.Join(dir, "o6"), desc}, "fit: --seed -1: want a whole number >= 0"},
		{[]string{"predict", "--model", fitted, "--reject", "high", desc}, "predict: --reject high: want a number"},
		{[]string{"version", "--bogus"}, "version: flag provided but not defined: -bogus (see covpipe version --help)"},
		{[]string{"predict", "--model", fitted, desc}, "takes 3×3 descriptors (features I,Ix,Iy), the descriptors of " + desc + " are 5×5 (features I,Ix,Iy,Ixx,Iyy)"},
	}
	for _, tc := range tests {
		_, stderr, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error containing %q", tc.args, err, tc.want)
		}
		if err != nil && strings.Contains(oneLine(err), "\n") {
			t.Errorf("%v: error is not one line", tc.args)
		}
		if strings.Contains(stderr, "USAGE:") || strings.Contains(stderr, "Incorrect Usage") {
			t.Errorf("%v: printed the help:\n%s", tc.args, stderr)
		}
	}
	os.WriteFile(good, []byte(tinyConfig), 0o644)
	if _, _, err := runCLI(t, "run", good, "--repeats", "0"); err == nil || !strings.Contains(err.Error(), "--repeats 0") {
		t.Errorf("--repeats 0: %v", err)
	}
	if _, _, err := runCLI(t, "run", good, "--methods", "rsr,nosuch"); err == nil || !strings.Contains(err.Error(), `no method "nosuch" (it has `) {
		t.Errorf("--methods nosuch: %v", err)
	}
}

// TestRunMemoryAndWorkers checks run's --max-memory and --workers: a
// config over the bound fails before it runs, naming the file, the
// setting and the estimate; the bound is the flag's; negative workers
// are refused naming the flag.
func TestRunMemoryAndWorkers(t *testing.T) {
	dir, cfg := writeTinyConfig(t)
	out := filepath.Join(dir, "results")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", cfg, "--repeats", "1000000000"}, cfg + ": experiment: invalid configuration: line 4: repeats: 1000000000 repeats of 1 task keep the results of 2 methods, about"},
		{[]string{"run", cfg, "--max-memory", "1KiB"}, "over the memory limit of 1 KiB"},
		{[]string{"run", cfg, "--max-memory", "lots"}, "run: --max-memory: "},
		{[]string{"run", cfg, "--workers", "-4"}, "run: --workers -4, want >= 0 (0: all cores)"},
	} {
		_, _, err := runCLI(t, append(tc.args, "--out", out)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error containing %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	stdout, _, err := runCLI(t, "version")
	if err != nil || !strings.HasPrefix(stdout, "covpipe 0.") {
		t.Errorf("version: %q, %v", stdout, err)
	}
	for _, flag := range []string{"--version", "-v"} {
		if got, _, err := runCLI(t, flag); err != nil || got != stdout {
			t.Errorf("%s: %q, %v; want %q, as covpipe version", flag, got, err, stdout)
		}
	}
	// --json gives the same version, with the Go release and the
	// module, as JSON.
	js, _, err := runCLI(t, "version", "--json")
	var info struct{ Version, Go, Platform, Module string }
	if err != nil || json.Unmarshal([]byte(js), &info) != nil || !strings.HasPrefix(stdout, "covpipe "+info.Version+" ") ||
		!strings.HasSuffix(stdout, " "+info.Platform+" "+info.Go+"\n") || info.Module != "github.com/covpipe/covpipe" {
		t.Errorf("version --json: %q, %v; want the version of %q", js, err, stdout)
	}
	stdout, _, err = runCLI(t, "run", "--help")
	if err != nil || !strings.Contains(stdout, "--repeats") || !strings.Contains(stdout, "results.json") {
		t.Errorf("run --help: %q, %v", stdout, err)
	}
}

func TestInterspersed(t *testing.T) {
	cmds := []*cli.Command{{Name: "run", Flags: []cli.Flag{
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}},
		&cli.IntFlag{Name: "repeats"},
		&cli.BoolFlag{Name: "quiet"},
	}}}
	tests := []struct{ in, want []string }{
		{[]string{"covpipe", "run", "c.yaml", "--out", "d"}, []string{"covpipe", "run", "--out", "d", "c.yaml"}},
		{[]string{"covpipe", "run", "c.yaml", "-o", "d", "--quiet", "--repeats=3"}, []string{"covpipe", "run", "-o", "d", "--quiet", "--repeats=3", "c.yaml"}},
		{[]string{"covpipe", "run", "--quiet", "c.yaml", "--", "--out"}, []string{"covpipe", "run", "--quiet", "c.yaml", "--", "--out"}},
		{[]string{"covpipe", "version"}, []string{"covpipe", "version"}},
		{[]string{"covpipe"}, []string{"covpipe"}},
	}
	for _, tc := range tests {
		if got := interspersed(tc.in, cmds); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("interspersed(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestFlagDefaults checks that the help of every flag of every command
// states its default at most once, that a switch shows none ("(default:
// false)" says nothing), and that a required flag shows none.
func TestFlagDefaults(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, cmd := range app.Commands {
		if cmd.Name == "help" {
			continue
		}
		stdout, _, err := runCLI(t, cmd.Name, "--help")
		if err != nil {
			t.Fatalf("%s --help: %v", cmd.Name, err)
		}
		_, flags, _ := strings.Cut(stdout, "OPTIONS:")
		for _, line := range strings.Split(flags, "\n") {
			n := strings.Count(line, "(default")
			if n > 1 || strings.Contains(line, "(default: false)") || strings.Contains(line, "(required") && n > 0 {
				t.Errorf("%s: %q", cmd.Name, strings.TrimSpace(line))
			}
		}
	}
}

// TestTuneGC checks that covpipe runs gcPolicy, unless GOGC names a
// growth.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	stop := tuneGC(func(string) string { return "" })
	got := debug.SetGCPercent(100)
	stop()
	if p := gcPolicy(); got < p.Percent || got > p.GOGC(0) {
		t.Errorf("GOGC unset: the collector runs at %d%%, want gcPolicy's, %d%% to %d%%", got, p.Percent, p.GOGC(0))
	}
	debug.SetGCPercent(100)
	stop = tuneGC(func(k string) string { return map[string]string{"GOGC": "70"}[k] })
	defer stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=70: covpipe set the collector to %d%%, want it left alone", got)
	}
}
