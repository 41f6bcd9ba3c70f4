package experiment

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestMethodRequestsAtLoad checks that a method whose Spec asks for what a
// task cannot give fails when the config loads, with an error naming the
// method, the task and what is missing, and that the same methods load on
// tasks that meet their requests.
func TestMethodRequestsAtLoad(t *testing.T) {
	const head = "name: t\nseed: 1\nrepeats: 1\n"
	const dataset = "data: {dataset: brodatz:x, features: texture}\n"
	const synthetic = "  - {name: syn, synthetic: {classes: 3, dim: 3, samples: 60, train: 0.5, spread: 1, variance: 0.5}}\n"
	const dictionary = "  - {name: dict, dictionary: {learn_per_class: 2, probe_per_class: 2, gallery_per_class: 2, atoms: 4}}\n"
	const codes = "  - {name: codes, type: codes, dictionary: random, sigma: 1, lambda: 0.1}\n"
	const pca = "  - {name: pca, type: pca-src, lambda: 0.1}\n"
	const gsr = "  - {name: gsr, lambda: 0.1}\n"
	for _, tc := range []struct {
		name, data, tasks, methods string
		want                       []string // substrings of the error; none: it loads
	}{
		{"codes on synthetic data", "", synthetic, codes,
			[]string{`method "codes" cannot run on task "syn" (synthetic)`, "a split with items to learn a dictionary from and its size (a dictionary task)"}},
		{"codes on a random split", dataset, "  - {name: rand, split: {train_per_class: 5}}\n", codes,
			[]string{`method "codes" cannot run on task "rand" (random split)`, "a dictionary task"}},
		{"codes after a dictionary task", dataset, dictionary + "  - {name: sel, train: {pose: [ba]}, test: {pose: [bg]}}\n", codes,
			[]string{`method "codes" cannot run on task "sel" (selectors)`}},
		{"pca-src on synthetic data", "", synthetic, pca,
			[]string{`method "pca" cannot run on task "syn" (synthetic)`, "feature vectors of its items (features I, step 1)", "regions: whole"}},
		{"gsr on a grid", "data: {dataset: brodatz:x, features: texture, regions: grid:2x2}\n", "  - {name: rand, split: {train_per_class: 5}}\n", gsr,
			[]string{`method "gsr" cannot run on task "rand" (random split)`, "features gabor, step 4"}},
		{"pca-src on a mosaic", "data: {features: texture, regions: grid:4x4}\n", "  - {name: mos, mosaic: {build: {textures: 3, seed: 1}}, split: {train_per_class: 5}}\n", pca,
			[]string{`method "pca" cannot run on task "mos" (mosaic)`, "feature vectors"}},
		{"sdalf on synthetic data", "", synthetic, "  - {name: sdalf}\n",
			[]string{`method "sdalf" cannot run on task "syn" (synthetic)`, "features y,R,G,B, step 2", "regions: whole"}},
		{"sdalf on a random split", "data: {dataset: mars:x, features: reid, resize: 32x64}\n", "  - {name: rand, split: {train_per_class: 5}}\n", "  - {name: sdalf}\n", nil},
		{"rsr on energy curves", "", energyTask, "  - {name: rsr, sigma: 1, lambda: 0.1}\n",
			[]string{`method "rsr" cannot run on task "fig7" (energy curve)`, "a method that traces its dictionary's energy (method type codes)"}},
		{"codes on a dictionary task", dataset, dictionary, codes, nil},
		{"codes on energy curves", "", energyTask, codes, nil},
		{"vectors on a dictionary task", dataset, dictionary, pca + gsr + "  - {name: rsr, sigma: 1, lambda: 0.1}\n", nil},
		{"a combiner asks nothing", dataset, dictionary + "  - {name: top, best: [dict]}\n", codes, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(head + tc.data + "tasks:\n" + tc.tasks + "methods:\n" + tc.methods))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantConfigError(t, err, tc.want)
		})
	}
}

// TestDeprecatedMetricName checks that the deprecated spelling logeuclid
// of the log-Euclidean metric and kernel still loads, with a warning that
// names the method's line and the canonical spelling, which the record of
// the run holds; pyRiemann's riemann for airm is an alias without one.
func TestDeprecatedMetricName(t *testing.T) {
	const cfg = "name: t\nseed: 1\nrepeats: 1\ntasks:\n%smethods:\n%s"
	const synthetic = "  - {name: syn, synthetic: {classes: 3, dim: 3, samples: 60, train: 0.5, spread: 1, variance: 0.5}}\n"
	for _, tc := range []struct {
		task     string // default synthetic
		method   string
		warnings []string // substrings of the one warning; none: no warning
		record   string   // substring of the recorded method
	}{
		{"", "  - {name: nn-le, type: nn, metric: logeuclid}\n",
			[]string{`line 7: method "nn-le": metric: "logeuclid" is deprecated`, `write "log-euclidean"`}, `"metric":"log-euclidean"`},
		{"", "  - {name: rsr-le, type: rsr, kernel: logeuclid, sigma: 0.3, lambda: 0.1}\n",
			[]string{`line 7: method "rsr-le": kernel: "logeuclid" is deprecated`, `write "log-euclidean"`}, `"kernel":"log-euclidean"`},
		{"", "  - {name: svm-le, type: stein-svm, kernel: logeuclid, sigma: 0.3, c: 1}\n",
			[]string{`method "svm-le": kernel: "logeuclid"`}, `"kernel":"log-euclidean"`},
		{"", "  - {name: rlpp-le, type: rlpp, kernel: logeuclid, sigma: 0.3}\n",
			[]string{`method "rlpp-le": kernel: "logeuclid"`}, `"kernel":"log-euclidean"`},
		{"", "  - {name: nn-le, type: nn, metric: log-euclidean}\n", nil, `"metric":"log-euclidean"`},
		{"", "  - {name: rsr-le, type: rsr, kernel: log-euclidean, sigma: 0.3, lambda: 0.1}\n", nil, `"kernel":"log-euclidean"`},
		{"", "  - {name: nn-r, type: nn, metric: riemann}\n", nil, `"metric":"airm"`},
		{energyTask, "  - {name: codes, type: codes, dictionary: kmeans, kmeans: riemann, sigma: 1, lambda: 0.1}\n", nil, `"kmeans":"airm"`},
	} {
		task := cmp.Or(tc.task, synthetic)
		plan, err := Parse(fmt.Appendf(nil, cfg, task, tc.method))
		if err != nil {
			t.Fatalf("%s: %v", tc.method, err)
		}
		ws := plan.Warnings()
		if len(ws) != min(1, len(tc.warnings)) {
			t.Errorf("%s: warnings %q, want %d", tc.method, ws, min(1, len(tc.warnings)))
		}
		for _, w := range tc.warnings {
			if len(ws) == 1 && !strings.Contains(ws[0], w) {
				t.Errorf("%s: warning %q does not contain %q", tc.method, ws[0], w)
			}
		}
		if b, err := json.Marshal(plan.Config.Methods[0]); err != nil || !strings.Contains(string(b), tc.record) {
			t.Errorf("%s: recorded as %s (%v), want %s", tc.method, b, err, tc.record)
		}
	}
}
