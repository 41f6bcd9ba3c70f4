package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/internal/strictyaml"
)

const fixtureConfig = `# A tiny synthetic experiment.
name: tiny
seed: 3
repeats: 2
tasks:
  - name: easy
    synthetic: {classes: 2, dim: 3, samples: 16, train: 0.5, spread: 1, variance: 0.5}
  - name: hard
    synthetic: {classes: 2, dim: 3, samples: 16, train: 0.5, spread: 1, variance: 2}
methods:
  - name: rsr
    sigma: 1        # Theorem 1
    lambda: 0.05
  - {name: nn-stein, type: nn, metric: stein}
`

const fixtureManifest = `runs:
  - id: tiny
    config: configs/tiny.yaml
  - id: tiny-sigma
    config: configs/tiny.yaml
    methods: [rsr]
    overrides:
      - {set: methods.rsr.sigma, value: 0.5}
      - {delete: methods.rsr.lambda}
      - {set: methods.rsr.lambda_ratio, value: [0.1, 0.2]}
tables:
  - name: tiny
    corner: task
    missing: "–"
    columns:
      - {header: RSR, run: tiny, method: rsr}
      - {header: RSR σ = 0.5, run: tiny-sigma, method: rsr, no_std: true}
      - {header: nn-stein, run: tiny-sigma, method: nn-stein}
      - {header: paper, ref: ["90.1", "70.2"]}
    rows:
      - {label: easy, task: easy}
      - {label: hard, task: hard}
`

func f64(x float64) *float64 { return &x }

// fixture writes a repository with one config, the manifest, the extracts
// of both runs and a doc holding the table; it returns the root.
func fixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write(t, root, "go.mod", "module example\n")
	write(t, root, "configs/tiny.yaml", fixtureConfig)
	write(t, root, "docs/runs/runs.yaml", fixtureManifest)
	m, err := ParseManifest([]byte(fixtureManifest))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"tiny", "tiny-sigma"} {
		r, _ := m.Run(id)
		variant, err := r.Variant(root)
		if err != nil {
			t.Fatal(err)
		}
		data, err := yamlData(variant)
		if err != nil {
			t.Fatal(err)
		}
		e := &Extract{ID: id, Command: r.Command(), ConfigFile: r.Config, Flags: r.Args(DataPlaceholder), Config: data, Seed: 3, Repeats: 2}
		base := 80.0
		if id == "tiny-sigma" {
			base = 81
		}
		e.Results = []ExtractResult{
			{Task: "easy", Method: "rsr", Mean: f64(base + 0.125), Std: f64(2.25), Runs: []float64{1, 2}},
			{Task: "hard", Method: "rsr", Mean: f64(base - 20), Std: f64(3.04), Runs: []float64{1, 2}},
		}
		if err := e.Write(ExtractPath(root, id)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, root, "docs/results.md", "# Results\n\nSome prose.\n\n<!-- table:tiny -->\nold\n<!-- /table -->\n\nRSR scores <!-- value run=tiny task=easy method=rsr -->?<!-- /value --> on easy.\n")
	return root
}

func write(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func doctables(t *testing.T, root string, args ...string) (string, error) {
	t.Helper()
	var out, errs bytes.Buffer
	err := run(append(args, "--root", root), &out, &errs)
	return out.String() + errs.String(), err
}

func TestRenderFromExtracts(t *testing.T) {
	root := fixture(t)
	if _, err := doctables(t, root, "check"); err == nil {
		t.Fatal("check passed on a doc whose table was never rendered")
	}
	if out, err := doctables(t, root, "render"); err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	want := "# Results\n\nSome prose.\n\n<!-- table:tiny -->\n" +
		"| task | RSR | RSR σ = 0.5 | nn-stein | paper |\n" +
		"|---|---:|---:|---:|---:|\n" +
		"| easy | 80.12 ± 2.2 | 81.12 | – | 90.1 |\n" +
		"| hard | 60.00 ± 3.0 | 61.00 | – | 70.2 |\n" +
		"\nReproduce: `go run ./internal/tools/doctables run tiny tiny-sigma`.\n" +
		"<!-- /table -->\n\nRSR scores <!-- value run=tiny task=easy method=rsr -->80.12<!-- /value --> on easy.\n"
	if got := read(t, root, "docs/results.md"); got != want {
		t.Errorf("rendered doc:\n%s\nwant:\n%s", got, want)
	}
	if out, err := doctables(t, root, "check"); err != nil {
		t.Errorf("check after render: %v\n%s", err, out)
	}
}

func TestCheckFailsOnHandEdits(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"table cell", "| easy | 80.12 ± 2.2 |", "| easy | 80.13 ± 2.2 |", "  - | easy | 80.13 ± 2.2 |"},
		{"inline value", "-->80.12<!--", "-->80.1<!--", "value run=tiny task=easy method=rsr"},
		{"unknown table", "<!-- table:tiny -->", "<!-- table:tinier -->", `no table "tinier"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fixture(t)
			if out, err := doctables(t, root, "render"); err != nil {
				t.Fatalf("render: %v\n%s", err, out)
			}
			doc := read(t, root, "docs/results.md")
			if !strings.Contains(doc, tc.from) {
				t.Fatalf("the rendered doc has no %q:\n%s", tc.from, doc)
			}
			write(t, root, "docs/results.md", strings.Replace(doc, tc.from, tc.to, 1))
			out, err := doctables(t, root, "check")
			if err == nil {
				t.Fatalf("check passed on a hand-edited doc")
			}
			if !strings.Contains(out+err.Error(), tc.want) {
				t.Errorf("check said %q (%v), want it to mention %q", out, err, tc.want)
			}
		})
	}
}

func TestCheckFailsOnMissingAndStaleExtracts(t *testing.T) {
	root := fixture(t)
	if out, err := doctables(t, root, "render"); err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	// A shipped config that changes makes the extracts made from it stale.
	write(t, root, "configs/tiny.yaml", strings.Replace(fixtureConfig, "seed: 3", "seed: 4", 1))
	out, err := doctables(t, root, "check")
	if err == nil || !strings.Contains(out, "extract of run tiny is stale: config.seed is 3, want 4") {
		t.Errorf("check after a config change: %v\n%s", err, out)
	}
	// Comments, layout and the figure drawn do not count.
	for what, cfg := range map[string]string{
		"a comment change": strings.Replace(fixtureConfig, "# Theorem 1", "# Theorem 1 allows it", 1),
		"a new figure":     strings.Replace(fixtureConfig, "seed: 3", "seed: 3\nplot: bars", 1),
		// No run of the fixture is quick.
		"a quick section": strings.Replace(fixtureConfig, "seed: 3", "seed: 3\nquick: {repeats: 1}", 1),
	} {
		write(t, root, "configs/tiny.yaml", cfg)
		if out, err := doctables(t, root, "check"); err != nil {
			t.Errorf("check after %s: %v\n%s", what, err, out)
		}
	}
	// A new method makes stale the runs of every method, not those of
	// the methods listed.
	write(t, root, "configs/tiny.yaml", fixtureConfig+"  - {name: nn-airm, type: nn, metric: airm}\n")
	out, err = doctables(t, root, "check")
	if err == nil || !strings.Contains(out, "extract of run tiny is stale: config.methods") {
		t.Errorf("check after a new method: %v\n%s", err, out)
	}
	if strings.Contains(out, "run tiny-sigma is stale") {
		t.Errorf("a new method made stale the run of rsr alone:\n%s", out)
	}
	write(t, root, "configs/tiny.yaml", fixtureConfig)
	if err := os.Remove(ExtractPath(root, "tiny-sigma")); err != nil {
		t.Fatal(err)
	}
	out, err = doctables(t, root, "check")
	if err == nil || !strings.Contains(err.Error(), "run tiny-sigma has no extract docs/runs/tiny-sigma.json") {
		t.Errorf("check without an extract: %v\n%s", err, out)
	}
}

func TestOverrides(t *testing.T) {
	overrides := func(y string) []Override {
		t.Helper()
		m, err := ParseManifest([]byte("runs:\n  - id: x\n    config: c.yaml\n    overrides:\n" + y))
		if err != nil {
			t.Fatal(err)
		}
		return m.Runs[0].Overrides
	}
	for _, tc := range []struct {
		name, overrides, want, err string
	}{
		{
			name:      "set a method's key in flow style",
			overrides: "      - {set: methods.nn-stein.metric, value: airm}\n",
			want:      `"metric":"airm","name":"nn-stein"`,
		},
		{
			name:      "replace lambda by lambda_ratio",
			overrides: "      - {delete: methods.rsr.lambda}\n      - {set: methods.rsr.lambda_ratio, value: [0.1]}\n",
			want:      `{"lambda_ratio":[0.1],"name":"rsr","sigma":1}`,
		},
		{
			name:      "add a data key",
			overrides: "      - {set: data, value: {gabor_border: symmetric}}\n",
			want:      `"data":{"gabor_border":"symmetric"}`,
		},
		{
			name:      "add a method",
			overrides: "      - {add: methods, value: {name: nn-airm, type: nn, metric: airm}}\n",
			want:      `{"metric":"airm","name":"nn-airm","type":"nn"}]`,
		},
		{
			name:      "delete a task, by index",
			overrides: "      - {delete: tasks.0}\n",
			want:      `"tasks":[{"name":"hard"`,
		},
		{
			name:      "a task's field",
			overrides: "      - {set: tasks.hard.synthetic.variance, value: 3}\n",
			want:      `"variance":3}}]`,
		},
		{name: "unknown method", overrides: "      - {set: methods.svm.c, value: 1}\n", err: `methods: no element named "svm" (names: rsr, nn-stein)`},
		{name: "unknown key to delete", overrides: "      - {delete: methods.rsr.lambda_ratio}\n", err: `no key "lambda_ratio" (keys: name, sigma, lambda)`},
		{name: "add to a mapping", overrides: "      - {add: methods.rsr, value: 1}\n", err: "methods.rsr is not a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := applyOverrides([]byte(fixtureConfig), overrides(tc.overrides))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := yamlData(out)
			if err != nil {
				t.Fatal(err)
			}
			j, _ := json.Marshal(data)
			if !strings.Contains(string(j), tc.want) {
				t.Errorf("config after the overrides:\n%s\nwant it to contain %s", j, tc.want)
			}
			if !strings.Contains(string(out), "# Theorem 1") {
				t.Errorf("the overrides dropped the config's comments:\n%s", out)
			}
		})
	}
}

func TestManifestIsStrict(t *testing.T) {
	for _, tc := range []struct{ name, manifest, err string }{
		{"unknown run key", "runs:\n  - id: a\n    config: c.yaml\n    flags: [--quick]\n", "field flags not found"},
		{"unknown table key", "tables:\n  - name: t\n    colums: []\n", "field colums not found"},
		{"duplicate run", "runs:\n  - {id: a, config: c.yaml}\n  - {id: a, config: c.yaml}\n", "run a is listed twice"},
		{"bad id", "runs:\n  - {id: A_1, config: c.yaml}\n", `id "A_1"`},
		{"no config", "runs:\n  - {id: a}\n", "run a: no config"},
		{"override with two verbs", "runs:\n  - id: a\n    config: c.yaml\n    overrides: [{set: x, delete: y}]\n", "want exactly one of set, delete and add"},
		{"set without value", "runs:\n  - id: a\n    config: c.yaml\n    overrides: [{set: x}]\n", "set x needs a value"},
		{"unknown run in a table", "tables:\n  - name: t\n    columns: [{header: h, method: rsr}]\n    rows: [{label: l, run: b, task: x}]\n", `no run "b"`},
		{"row and column disagree", "runs:\n  - {id: a, config: c.yaml}\ntables:\n  - name: t\n    run: a\n    columns: [{header: h, method: rsr, task: x}]\n    rows: [{label: l, task: y}]\n", "the column and the row both set task"},
		{"two kinds in a cell", "runs:\n  - {id: a, config: c.yaml}\ntables:\n  - name: t\n    run: a\n    columns: [{header: h, method: rsr, task: x, rank: 1}]\n    rows: [{label: l, iter: 2}]\n", "fields of cmc and energy"},
		{"ref length", "tables:\n  - name: t\n    columns: [{header: h, ref: [a, b]}]\n    rows: [{label: l}]\n", "2 ref entries for 1 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(tc.manifest))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

// TestImportChecksConfig makes a results.json as covpipe records it (the
// config as run, flags applied) and imports it as the extract of a run
// with the same flags and of one with others.
func TestImportChecksConfig(t *testing.T) {
	root := fixture(t)
	m, err := LoadManifest(filepath.Join(root, "docs/runs/runs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := experiment.Parse([]byte(fixtureConfig))
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]any{"version": "0.1.0", "seed": 3, "repeats": 2, "config": plan.Config, "data_root": "/secret/data",
		"results": []map[string]any{
			{"task": "easy", "method": "rsr", "accuracy_mean": 75.5, "accuracy_std": 1.5, "runs": []float64{74, 77},
				"classes": []string{"secret-a", "secret-b"}, "confusion": [][]int{{1, 0}, {0, 1}},
				"params": []map[string]float64{{"sigma": 1, "lambda": 0.05}, {"sigma": 1, "lambda": 0.05}},
				"parts": []map[string]any{
					{"layout": "secret-layout", "part_params": []map[string]float64{{"sigma": 1}, {"sigma": 0.1}}},
					{"layout": "secret-layout", "part_params": []map[string]float64{{"sigma": 0.1}, {"sigma": 0.1}}}}},
			{"task": "fig7", "method": "learned", "accuracy_mean": 61.2, "energy_mean": []float64{70, 61.2}, "energy_std": []float64{2, 1}},
		}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tiny, _ := m.Run("tiny")
	e, err := NewExtract(root, tiny, path)
	if err != nil {
		t.Fatalf("import of a matching results.json: %v", err)
	}
	j, _ := json.Marshal(e)
	for _, leak := range []string{"secret", "confusion", `"classes":["`, "data_root"} {
		if strings.Contains(string(j), leak) {
			t.Errorf("the extract holds %q: %s", leak, j)
		}
	}
	if r := e.Result("fig7", "learned"); r == nil || r.Mean != nil || len(r.Energy) != 2 {
		t.Errorf("energy result %+v: want the curve and no accuracy", r)
	}
	if r := e.Result("easy", "rsr"); r == nil || len(r.Params["sigma"]) != 1 || r.Params["sigma"][0].Repeats != 2 {
		t.Errorf("params of easy/rsr: %+v", r)
	}
	if r := e.Result("easy", "rsr"); r == nil || !reflect.DeepEqual(r.PartParams, map[string][]ParamCount{"sigma": {{0.1, 3}, {1, 1}}}) {
		t.Errorf("region parameters of easy/rsr: %+v, want σ 0.1 in 3 regions and 1 in 1, over both repeats", r.PartParams)
	}
	variant, _ := m.Run("tiny-sigma")
	if _, err := NewExtract(root, variant, path); err == nil || !strings.Contains(err.Error(), "config as run differs: config.methods") {
		t.Errorf("import as a run with other overrides and flags: %v", err)
	}
}

func TestBench(t *testing.T) {
	out := `# command: go test -run X -bench SteinEntry -cpu 1 -count 3 ./spd
goos: linux
goarch: amd64
pkg: github.com/covpipe/covpipe/spd
cpu: AMD EPYC
BenchmarkSteinEntry/d=43         	  700000	      1723 ns/op	       0 B/op	       0 allocs/op
BenchmarkSteinEntry/d=43         	  700000	      1789.5 ns/op	       0 B/op	       0 allocs/op
BenchmarkSteinEntry/d=43         	  700000	      1741 ns/op	       0 B/op	       0 allocs/op
# command: go test -run X -bench 'GramSym600|Texture' -cpu 2 -count 3 ./spd
BenchmarkGramSym600-2            	       3	 498000000 ns/op	 2880000 B/op
BenchmarkTexture-2               	       3	 1000 ns/op	 1720.4 images/s
BenchmarkTexture-2               	       3	 1000 ns/op	 1890 images/s
# command: docs/bench/sitting.sh processes
BenchmarkProcess/synthetic 1 2.62 wall-s 5.1 cpu-s 48211 peak-KB
# command: go test -bench SVM -cpu 1,2 ./svm
BenchmarkSteinSVM/decide-5000 	       2	  43296237 ns/op	 2859056 B/op	       4 allocs/op
BenchmarkLasso 	       2	  4329 ns/op	 10.5 nonzeros/op
BenchmarkLasso-2 	       2	  4000 ns/op	 10.5 nonzeros/op
PASS
ok  	github.com/covpipe/covpipe/spd	12.3s
`
	f, err := ParseBench([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	if f.CPU != "AMD EPYC" || len(f.Commands) != 4 {
		t.Errorf("cpu %q, commands %q", f.CPU, f.Commands)
	}
	st := &store{benches: map[string]*BenchFile{"spd": f}}
	for _, tc := range []struct {
		c    Cell
		want string
	}{
		{Cell{Benchmark: "BenchmarkSteinEntry", Sub: "d=43"}, "1.72–1.79 µs"},
		{Cell{Benchmark: "BenchmarkSteinEntry/d=43", Stat: "median"}, "1.74 µs"},
		{Cell{Benchmark: "BenchmarkSteinEntry/d=43", Unit: "allocs/op"}, "0 allocs"},
		{Cell{Benchmark: "BenchmarkGramSym600", CPU: 2}, "498 ms"},
		{Cell{Benchmark: "BenchmarkGramSym600", Unit: "B/op"}, "2.88 MB"},
		{Cell{Benchmark: "BenchmarkTexture", Unit: "images/s"}, "1,720–1,890 images/s"},
		{Cell{Benchmark: "BenchmarkProcess/synthetic", Unit: "wall-s"}, "2.62 s"},
		{Cell{Benchmark: "BenchmarkProcess/synthetic", Unit: "peak-KB"}, "49.4 MB"},
		{Cell{Benchmark: "BenchmarkSteinSVM/decide-5000"}, "43.3 ms"},
		{Cell{Benchmark: "BenchmarkLasso", CPU: 1, Unit: "nonzeros/op"}, "10.5 nonzeros/op"},
		{Cell{Benchmark: "BenchmarkLasso", CPU: 2, Unit: "nonzeros/op", NoUnit: &yes}, "10.5"},
	} {
		tc.c.Bench = "spd"
		got, cmd, err := st.benchText(tc.c)
		if err != nil || got != tc.want {
			t.Errorf("%+v: %q (%v), want %q", tc.c, got, err, tc.want)
		}
		wantCmd := f.Commands[0]
		switch {
		case strings.HasPrefix(tc.c.Benchmark, "BenchmarkGramSym600"), strings.HasPrefix(tc.c.Benchmark, "BenchmarkTexture"):
			wantCmd = f.Commands[1]
		case strings.HasPrefix(tc.c.Benchmark, "BenchmarkProcess"):
			wantCmd = f.Commands[2]
		case strings.HasPrefix(tc.c.Benchmark, "BenchmarkSteinSVM"), strings.HasPrefix(tc.c.Benchmark, "BenchmarkLasso"):
			wantCmd = f.Commands[3]
		}
		if cmd != wantCmd {
			t.Errorf("%+v: command %q, want %q", tc.c, cmd, wantCmd)
		}
	}
	for _, c := range []Cell{
		{Bench: "spd", Benchmark: "BenchmarkSteinEntry/d=17"},
		{Bench: "spd", Benchmark: "BenchmarkSteinEntry/d=43", Unit: "MB/s"},
		{Bench: "spd", Benchmark: "BenchmarkGramSym600", CPU: 1},
		{Bench: "spd", Benchmark: "BenchmarkSteinSVM/decide"},
		{Bench: "spd", Benchmark: "BenchmarkLasso"}, // at -cpu 1 and 2
	} {
		if got, _, err := st.benchText(c); err == nil {
			t.Errorf("%+v: %q, want an error", c, got)
		}
	}
	if _, err := ParseBench([]byte("BenchmarkX 1 2 ns/op\n--- FAIL: BenchmarkY\nFAIL\n")); err == nil {
		t.Error("a failed benchmark run parsed")
	}
}

// TestRowCells renders a table whose rows override single cells: another
// run, a text, and a benchmark the file does not have.
func TestRowCells(t *testing.T) {
	root := fixture(t)
	manifest := fixtureManifest + `  - name: cells
    corner: task
    missing: "n/a"
    columns:
      - {header: a, run: tiny, method: rsr}
      - {header: b, run: tiny, method: rsr, value: unconverged}
      - {header: c, bench: spd, benchmark: BenchmarkSteinEntry, sub: d=43}
    rows:
      - label: easy
        task: easy
        cells: {a: {run: tiny-sigma}, b: {text: "see above"}}
      - label: hard
        task: hard
        cells: {c: {sub: d=17}}
`
	write(t, root, "docs/runs/runs.yaml", manifest)
	write(t, root, "docs/runs/bench/spd.txt", "# command: go test -bench SteinEntry ./spd\nBenchmarkSteinEntry/d=43 100 1500 ns/op\n")
	write(t, root, "docs/bench.md", "<!-- table:cells -->\n<!-- /table -->\n")
	if out, err := doctables(t, root, "render"); err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	want := "<!-- table:cells -->\n| task | a | b | c |\n|---|---:|---:|---:|\n" +
		"| easy | 81.12 ± 2.2 | see above | 1.50 µs |\n" +
		"| hard | 60.00 ± 3.0 | 0 | n/a |\n" +
		"\nReproduce: `go run ./internal/tools/doctables run tiny-sigma tiny`; `go test -bench SteinEntry ./spd`.\n<!-- /table -->\n"
	if got := read(t, root, "docs/bench.md"); got != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", got, want)
	}
	bad := strings.Replace(manifest, "cells: {c: {sub: d=17}}", "cells: {d: {sub: d=17}}", 1)
	if _, err := ParseManifest([]byte(bad)); err == nil || !strings.Contains(err.Error(), `cells: no column "d"`) {
		t.Errorf("a row's cells naming no column: %v", err)
	}
}

// TestLoadManifestTooLarge checks that a manifest over strictyaml.MaxSize
// is refused before it is parsed, naming the file and the limit.
func TestLoadManifestTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.yaml")
	if err := os.WriteFile(path, []byte(strings.Repeat("# padding\n", strictyaml.MaxSize/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadManifest(path)
	if !errors.Is(err, strictyaml.ErrTooLarge) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "at most 1 MiB") {
		t.Errorf("LoadManifest(over 1 MiB): %v, want an error naming %s and the limit", err, path)
	}
}

// TestResultCells checks cells of one result against numbers worked by
// hand, and that asking them of an accuracy result (task easy) is an
// error naming the run, method and task: an open-set result's auc, tar
// and identified; and the cross-validated estimate (70 and 80: mean 75,
// std 7.07) and the test's bias from it (60 − 70 and 78 − 80: mean −6,
// std 5.66); and a method's difference from another, repeat by repeat.
func TestResultCells(t *testing.T) {
	for _, tc := range []struct {
		name    string
		result  ExtractResult
		columns string
		want    string
		refusal string
	}{
		{"open", ExtractResult{Mean: f64(65.7), Std: f64(1.76), Runs: []float64{1, 2},
			Curves: Curves{AUC: &Stat{0.73693, 0.01597}, TAR: &Stat{44.9, 3.01}, Identified: &Stat{40.7, 1.46}}},
			`
      - {header: AUC, value: auc, decimals: 3, std_decimals: 3}
      - {header: TAR, value: tar}
      - {header: identified, value: identified}
      - {header: known}`,
			"| rsr | 0.737 ± 0.016 | 44.90 ± 3.0 | 40.70 ± 1.5 | 65.70 ± 1.8 |\n",
			"run tiny: rsr on easy has no auc (not an open-set result)"},
		{"cv", ExtractResult{Mean: f64(69), Std: f64(12.73), Runs: []float64{60, 78}, CVEstimate: []float64{70, 80}},
			`
      - {header: estimate, value: cv}
      - {header: test}
      - {header: bias, value: bias}`,
			"| rsr | 75.00 ± 7.1 | 69.00 ± 12.7 | -6.00 ± 5.7 |\n",
			"run tiny: rsr on easy records 0 cross-validated estimates"},
		{"regions", ExtractResult{Mean: f64(69), Runs: []float64{69}, PartParams: map[string][]ParamCount{"sigma": {{0.05, 7}, {0.5, 3}}}},
			`
      - {header: σ per region, value: part-param, param: sigma}`,
			"| rsr | 0.05 (7×), 0.5 (3×) |\n",
			`run tiny: rsr on easy records no region's parameter "sigma"`},
		{"vs", ExtractResult{Mean: f64(69), Std: f64(12.73), Runs: []float64{60, 78}},
			`
      - {header: rsr − svm, value: vs, against: svm}`,
			"| rsr | -3.00 ± 7.1 |\n",
			`run tiny: no result of "svm" on easy with rsr's`},
	} {
		tc.result.Task, tc.result.Method = tc.name, "rsr"
		root := fixtureWith(t, tc.result)
		if tc.name == "vs" {
			// 60 − 68 and 78 − 76: mean −3, std 7.07.
			root = fixtureWith(t, tc.result, ExtractResult{Task: "vs", Method: "svm", Mean: f64(72), Runs: []float64{68, 76}})
		}
		manifest := fixtureManifest + "  - name: " + tc.name + "\n    corner: method\n    run: tiny\n    method: rsr\n    columns:" + tc.columns +
			"\n    rows:\n      - {label: rsr, task: " + tc.name + "}\n"
		write(t, root, "docs/runs/runs.yaml", manifest)
		write(t, root, "docs/t.md", "<!-- table:"+tc.name+" -->\n<!-- /table -->\n")
		if out, err := doctables(t, root, "render"); err != nil {
			t.Fatalf("%s: render: %v\n%s", tc.name, err, out)
		}
		if got := read(t, root, "docs/t.md"); !strings.Contains(got, tc.want) {
			t.Errorf("%s: rendered:\n%s\nwant the row\n%s", tc.name, got, tc.want)
		}
		write(t, root, "docs/runs/runs.yaml", strings.Replace(manifest, "task: "+tc.name, "task: easy", 1))
		if out, err := doctables(t, root, "render"); err == nil || !strings.Contains(out+err.Error(), tc.refusal) {
			t.Errorf("%s of an accuracy result: %v\n%s", tc.name, err, out)
		}
	}
}

// TestChoiceCounts checks the counts of a best method's choices: the
// most chosen first, ties in order of first choice.
func TestChoiceCounts(t *testing.T) {
	got := choiceCounts([]string{"rlpp", "rsr", "rsr", "svm", "rlpp", "rsr"})
	want := []ChoiceCount{{"rsr", 3}, {"rlpp", 2}, {"svm", 1}}
	if !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if choiceCounts(nil) != nil {
		t.Error("no choices: want nil")
	}
}

// fixtureWith is fixture with r among the results of its run tiny.
func fixtureWith(t *testing.T, rs ...ExtractResult) string {
	t.Helper()
	root := fixture(t)
	e, err := ReadExtract(ExtractPath(root, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	e.Results = append(e.Results, rs...)
	if err := e.Write(ExtractPath(root, "tiny")); err != nil {
		t.Fatal(err)
	}
	return root
}
