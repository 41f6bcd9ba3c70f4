package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/method"
)

const validYAML = `
name: tiny
seed: 7
repeats: 3
tasks:
  - name: easy
    synthetic: {classes: 3, dim: 3, samples: 60, train: 0.5, spread: 1, variance: 0.5}
methods:
  - name: rsr
    sigma: 1
    lambda: 0.05
`

// energyTask is a task line of energy curves (Fig. 7) to add to validYAML.
const energyTask = "  - {name: fig7, energy_curve: {sources: 4, dim: 3, points: 20, samples: 16, mix: 2, atoms: 4, iters: 2}}\n"

func TestParseValid(t *testing.T) {
	plan, err := Parse([]byte(validYAML))
	if err != nil {
		t.Fatal(err)
	}
	cfg := plan.Config
	if cfg.Name != "tiny" || cfg.Seed != 7 || cfg.Repeats != 3 || len(cfg.Tasks) != 1 || cfg.Tasks[0].Kind != "synthetic" ||
		plan.tasks[0].(*syntheticTask).Synthetic.Variance != 0.5 {
		t.Errorf("parsed %+v", cfg)
	}
	// The record of the run holds each method's decoded parameters.
	b, err := json.Marshal(cfg.Methods[0])
	if err != nil || string(b) != `{"kernel":"stein","lambda":[0.05],"name":"rsr","sigma":[1],"type":"rsr"}` {
		t.Errorf("method recorded as %s, %v", b, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown top-level key", strings.Replace(validYAML, "repeats: 3", "repeats: 3\nrepeat: 4", 1),
			[]string{`line 5: unknown key "repeat" in the experiment`, "allowed: name, description, seed, repeats"}},
		{"unknown method key", strings.Replace(validYAML, "lambda: 0.05", "lambda: 0.05\n    sigmaa: 2", 1),
			[]string{`line 12: unknown key "sigmaa" in method type rsr`, "(allowed: sigma, lambda, lambda_ratio, tolerance, rule, nonnegative, pseudo_kernel, kernel)"}},
		{"unknown synthetic key", strings.Replace(validYAML, "variance: 0.5", "varience: 0.5", 1),
			[]string{`unknown key "varience" in synthetic`}},
		{"bad type", strings.Replace(validYAML, "repeats: 3", "repeats: many", 1), []string{"line 4", "many"}},
		{"no repeats", strings.Replace(validYAML, "repeats: 3", "repeats: 0", 1), []string{"line 4: repeats = 0"}},
		{"invalid sigma", strings.Replace(validYAML, "sigma: 1", "sigma: 0.7", 1),
			[]string{"line 10:", "sigma = 0.7", "{0.5, 1} or sigma > 1"}},
		{"negative lambda", strings.Replace(validYAML, "lambda: 0.05", "lambda: -1", 1), []string{"lambda = -1"}},
		{"missing sigma", strings.Replace(validYAML, "    sigma: 1\n    lambda: 0.05\n", "    kernel: log-euclidean\n", 1), []string{`method "rsr"`, "missing sigma"}},
		{"lambda and ratio", strings.Replace(validYAML, "lambda: 0.05", "lambda: 0.05\n    lambda_ratio: 0.1", 1), []string{"lambda", "lambda_ratio", "not both"}},
		{"ratio 1", strings.Replace(validYAML, "lambda: 0.05", "lambda_ratio: [0.1, 1]", 1), []string{"lambda_ratio: ", "lambda ratio = 1 must be in (0, 1)"}},
		{"ratio 0", strings.Replace(validYAML, "lambda: 0.05", "lambda_ratio: 0", 1), []string{"lambda_ratio: ", "lambda ratio = 0 must be in (0, 1)"}},
		{"ratio for nn", strings.Replace(strings.Replace(validYAML, "lambda: 0.05", "lambda_ratio: 0.1", 1), "    sigma: 1\n", "", 1) + "    type: nn\n    metric: stein\n",
			[]string{`line 10: unknown key "lambda_ratio" in method type nn (allowed: metric)`}},
		{"repeated candidate", strings.Replace(validYAML, "sigma: 1", "sigma: [1, 1, 2]", 1), []string{"sigma lists 1 twice"}},
		{"sigma against the features' d", "name: t\nseed: 1\nrepeats: 1\ndata: {dataset: brodatz:x, features: texture}\ntasks:\n  - {name: a, split: {train_per_class: 5}}\nmethods:\n  - {name: rsr, sigma: 0.7, lambda: 0.1}\n",
			[]string{`method "rsr" on task "a" (5×5 matrices)`, "sigma = 0.7", "{0.5, 1, 1.5, 2} or sigma > 2"}},
		{"unknown method", strings.Replace(validYAML, "name: rsr", "name: svm", 1), []string{`unknown method type "svm"`, "known: " + strings.Join(method.Names(), ", ")}},
		{"unknown rule", strings.Replace(validYAML, "lambda: 0.05", "lambda: 0.05\n    rule: vote", 1), []string{`unknown classification rule "vote"`}},
		{"bad synthetic", strings.Replace(validYAML, "classes: 3", "classes: 1", 1), []string{`task "easy"`, "classes = 1"}},
		{"duplicate task", strings.Replace(validYAML, "methods:", "  - name: easy\n    synthetic: {classes: 3, dim: 3, samples: 60, train: 0.5, spread: 1, variance: 1}\nmethods:", 1),
			[]string{`duplicate task name "easy"`}},
		{"no data", strings.Replace(validYAML, "    synthetic: {classes: 3, dim: 3, samples: 60, train: 0.5, spread: 1, variance: 0.5}\n", "", 1),
			[]string{"no data source: give one of synthetic (synthetic: {classes"}},
		{"empty", "", []string{"empty file"}},
		{"parameter lists without folds", strings.Replace(strings.Replace(validYAML, "sigma: 1", "sigma: [0.5, 1]", 1), "repeats: 3", "repeats: 3\nfolds: 1", 1), []string{"folds = 1"}},
		{"parameter that does not apply", strings.Replace(validYAML, "name: rsr", "name: nn\n    metric: airm", 1), []string{`unknown key "sigma" in method type nn (allowed: metric)`}},
		{"two data sources", strings.Replace(validYAML, "    synthetic:", "    average: [x]\n    synthetic:", 1), []string{`unknown key "average" in a synthetic task (allowed: name, synthetic)`}},
		{"average of nothing", strings.Replace(validYAML, "methods:", "  - {name: avg, average: []}\nmethods:", 1), []string{"average lists no tasks"}},
		{"negative folds", strings.Replace(validYAML, "repeats: 3", "repeats: 3\nfolds: -1", 1), []string{"folds = -1"}},
		{"zero folds", strings.Replace(validYAML, "repeats: 3", "repeats: 3\nfolds: 0", 1), []string{"line 5: folds = 0, want >= 1 (leave folds out for the default, 3)"}},
		{"second document", validYAML + "---\nrepeats: 100\n", []string{"a second YAML document"}},
		{"unknown plot", strings.Replace(validYAML, "repeats: 3", "repeats: 3\nplot: pie", 1), []string{`line 5: plot "pie", want cmc, bars, energy, roc or none`}},
		{"plot not a name", strings.Replace(validYAML, "repeats: 3", "repeats: 3\nplot: [cmc]", 1), []string{"line 5: plot is one of cmc, bars, energy, roc or none"}},
		{"cmc plot without ranks", strings.Replace(validYAML, "repeats: 3", "repeats: 3\nplot: cmc", 1), []string{"line 5: plot: cmc needs cmc: R"}},
		{"average of energy curves", strings.Replace(validYAML, "methods:", energyTask+"  - {name: avg, average: [easy, fig7]}\nmethods:", 1),
			[]string{`task "avg": task "fig7" gives energy curves, not accuracies`}},
		{"best of energy curves", strings.Replace(validYAML, "methods:", energyTask+"  - {name: top, best: [fig7]}\nmethods:", 1),
			[]string{`task "top": task "fig7" gives energy curves, not accuracies`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			wantConfigError(t, err, tc.want)
		})
	}
}

// wantConfigError fails t unless err wraps config.ErrConfig and its
// message holds every string of want.
func wantConfigError(t *testing.T, err error, want []string) {
	t.Helper()
	if !errors.Is(err, config.ErrConfig) {
		t.Fatalf("got %v, want ErrConfig", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// TestShippedConfigsParse parses every config in configs/ strictly.
func TestShippedConfigsParse(t *testing.T) {
	paths, err := filepath.Glob("../configs/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no configs found: %v", err)
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestLoadNamesFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "my-exp.yaml")
	if err := os.WriteFile(p, []byte(strings.Replace(validYAML, "name: tiny\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Config.Name != "my-exp" {
		t.Errorf("name %q, want the file name", plan.Config.Name)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("repeats: [1\n"), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("malformed YAML error should name the file: %v", err)
	}
}

func TestDataGaborBorder(t *testing.T) {
	const base = "name: f\nseed: 1\nrepeats: 1\ndata:\n  dataset: feret:x\n  features: %s\n%stasks:\n  - name: bg\n    train: {pose: [ba]}\n    test: {pose: [bg]}\nmethods:\n  - {name: nn-stein, type: nn, metric: stein}\n"
	for _, tc := range []struct {
		features, extra, want, err string
	}{
		{"face", "", "zero", ""},
		{"face", "  gabor_border: symmetric\n", "symmetric", ""},
		{"\"face; gabor-border=symmetric\"", "", "", ""}, // recorded in the spec itself
		{"texture", "", "", ""},
		{"texture", "  gabor_border: zero\n", "", "has no Gabor planes"},
		{"face", "  gabor_border: reflect\n", "", `unknown border "reflect"`},
		{"\"face;gabor-border=zero\"", "  gabor_border: symmetric\n", "", "given twice"},
	} {
		plan, err := Parse([]byte(fmt.Sprintf(base, tc.features, tc.extra)))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: error %v, want %q", tc.features, tc.extra, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s %q: %v", tc.features, tc.extra, err)
		case plan.Config.Data.GaborBorder != tc.want:
			t.Errorf("%s %q: gabor_border %q, want %q", tc.features, tc.extra, plan.Config.Data.GaborBorder, tc.want)
		}
	}
}

func TestQuick(t *testing.T) {
	plan, err := Load("../configs/dictionary-brodatz.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Quick(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, task := range plan.Config.Tasks {
		names = append(names, task.Name)
	}
	if plan.Config.Repeats != 3 || strings.Join(names, ",") != "k16,k64,k128,best" || len(plan.tasks) != 4 {
		t.Errorf("quick: %d repeats, tasks %v", plan.Config.Repeats, names)
	}
	if best := plan.tasks[3].(*bestTask).Best; strings.Join(best, ",") != "k16,k64,k128" {
		t.Errorf("best keeps %v", best)
	}
	tiny := tinyConfig(t)
	if err := tiny.Quick(); err == nil || !strings.Contains(err.Error(), "no quick section") {
		t.Errorf("quick without a section: %v", err)
	}
	if _, err := Parse([]byte(strings.Replace(validYAML, "repeats: 3", "repeats: 3\nquick: {tasks: [nope]}", 1))); err == nil || !strings.Contains(err.Error(), `quick: no task "nope"`) {
		t.Errorf("quick naming a missing task: %v", err)
	}
	if _, err := Parse([]byte(strings.Replace(validYAML, "repeats: 3", "repeats: 3\nquick: {methods: [nope]}", 1))); err == nil || !strings.Contains(err.Error(), `quick: no method "nope"`) {
		t.Errorf("quick naming a missing method: %v", err)
	}
	two, err := Parse([]byte(strings.Replace(validYAML+"  - {name: nn, type: nn, metric: stein}\n", "repeats: 3", "repeats: 3\nquick: {methods: [nn]}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := two.Quick(); err != nil {
		t.Fatal(err)
	}
	if len(two.methods) != 1 || len(two.Config.Methods) != 1 || two.Config.Methods[0].Name != "nn" {
		t.Errorf("quick methods: kept %v", two.Config.Methods)
	}
}

// twoRoles is a protocol that would both run and combine.
type twoRoles struct{ averageTask }

func (*twoRoles) run(*engine, int) ([]results.Result, error) { return nil, nil }
func (*twoRoles) gives() string                              { return "" }

// TestCheckProtocol checks that every protocol of the table has exactly
// one role, and that one with two is refused.
func TestCheckProtocol(t *testing.T) {
	for _, p := range []protocol{&syntheticTask{}, &mosaicTask{}, &averageTask{}, &bestTask{}, &energyCurveTask{}, &openSetTask{},
		overDataset{&dictionaryTask{}}, overDataset{&selectorsTask{}}, overDataset{&groupSplitTask{}}, overDataset{&randomSplitTask{}}} {
		if err := checkProtocol(p, nil); err != nil {
			t.Errorf("%T: %v", p, err)
		}
	}
	if err := checkProtocol(&twoRoles{}, nil); err == nil || !strings.Contains(err.Error(), "is 2 of splitter, runner and combiner") {
		t.Errorf("two roles: %v", err)
	}
}
