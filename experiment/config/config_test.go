package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// base is the head of the experiment files of the tests: the keys that
// Decode reads without any section of its own.
const base = "name: t\nseed: 1\nrepeats: 1\n"

// TestDecodeUnknownKeys checks, word for word, the message of an unknown
// key in each section that configTypes names (yaml.v3 names the Go type,
// config.Config and the others): its line, its section and the keys
// allowed there, listed here by hand from the yaml tags.
func TestDecodeUnknownKeys(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"experiment", base + "repeat: 4\n",
			`line 4: unknown key "repeat" in the experiment (allowed: name, description, seed, repeats, workers, folds, folds_by, folds_within, cmc, plot, quick, data, tasks, methods)`},
		{"data", base + "data:\n  features: face\n  featurs: x\n",
			`line 6: unknown key "featurs" in data (allowed: dataset, features, gabor_border, resize, filter, jpeg_scale, regions, ridge, ridge_kind, skip_bad, estimator, normalize, parts)`},
		{"quick", base + "quick: {repeat: 2}\n",
			`line 4: unknown key "repeat" in quick (allowed: repeats, tasks, methods)`},
		{"data.parts", base + "data:\n  features: face\n  parts: {regions: whole, rule: sum}\n",
			`line 6: unknown key "rule" in data.parts (allowed: regions, fusion)`},
	} {
		_, _, err := Decode([]byte(tc.yaml))
		if want := ErrConfig.Error() + ": " + tc.want; !errors.Is(err, ErrConfig) || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", tc.name, err, want)
		}
	}
}

// TestDecode checks what Decode gives and refuses: the tasks numbered in
// file order with their mappings, the methods' parameters without name
// and type, no value judged (repeats: 0 decodes; the plan refuses it), and
// errors wrapping ErrConfig.
func TestDecode(t *testing.T) {
	c, root, err := Decode([]byte("repeats: 0\ntasks:\n  - {name: a, synthetic: {dim: 3}}\n  - {name: b, average: [a]}\nmethods:\n  - {name: rsr, sigma: 1, lambda: 0.1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if root == nil || c.Repeats != 0 || len(c.Tasks) != 2 || c.Tasks[1].Name != "b" || c.Tasks[1].Index() != 1 || c.Tasks[0].Index() != 0 {
		t.Fatalf("decoded %+v", c)
	}
	if n := c.Tasks[0].Node(); n == nil || len(n.Content) != 4 || n.Content[2].Value != "synthetic" {
		t.Errorf("task mapping %+v", n)
	}
	m := c.Methods[0]
	var keys []string
	for i := 0; i < len(m.ParamsNode().Content); i += 2 {
		keys = append(keys, m.ParamsNode().Content[i].Value)
	}
	if m.Name != "rsr" || m.Type != "" || strings.Join(keys, ",") != "sigma,lambda" {
		t.Errorf("method %q of type %q with parameters %v", m.Name, m.Type, keys)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"", "empty file"},
		{"repeats: many\n", "line 1"},
		{"tasks: [3]\n", "a task is a mapping"},
		{"methods: [[rsr]]\n", "a method is a mapping"},
		{base + "---\nrepeats: 2\n", "a second YAML document"},
	} {
		if _, _, err := Decode([]byte(tc.yaml)); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

// TestAtAndSets checks the lines At finds in a small file, against the
// lines counted by hand, and what Sets reports.
func TestAtAndSets(t *testing.T) {
	_, root, err := Decode([]byte("name: t\nrepeats: 1\ntasks:\n  - name: a\n    synthetic: {dim: 3}\n  - name: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path []any
		want string
	}{
		{nil, "line 1: "},
		{[]any{"repeats"}, "line 2: "},
		{[]any{"tasks", 1}, "line 6: "},
		{[]any{"tasks", 0, "synthetic", "dim"}, "line 5: "},
		{[]any{"tasks", 0, "nope"}, "line 4: "}, // the mapping's line
		{[]any{"tasks", 2}, ""},
		{[]any{"name", "x"}, ""},
		{[]any{"name", 0}, ""},
	} {
		if got := At(root, tc.path...); got != tc.want {
			t.Errorf("At(%v) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if !Sets(root, "repeats") || Sets(root, "folds") || Sets(root, "a") || Sets(nil, "repeats") {
		t.Error("Sets: repeats, folds, a (a task's name), nil root:", Sets(root, "repeats"), Sets(root, "folds"), Sets(root, "a"), Sets(nil, "repeats"))
	}
}

// TestSpecsJSON checks the records of tasks and methods: a task as its
// protocol decoded it (Settings) or as read back, a method with its
// decoded parameters, name and type.
func TestSpecsJSON(t *testing.T) {
	task := TaskSpec{Name: "a", Settings: struct {
		Name string `json:"name"`
		Dim  int    `json:"dim"`
	}{"a", 3}}
	b, err := json.Marshal(task)
	if err != nil || string(b) != `{"name":"a","dim":3}` {
		t.Errorf("task recorded as %s, %v", b, err)
	}
	var back TaskSpec
	if err := json.Unmarshal(b, &back); err != nil || back.Name != "a" || back.Node() != nil {
		t.Fatalf("task read back as %+v, %v", back, err)
	}
	if b2, err := json.Marshal(back); err != nil || string(b2) != `{"dim":3,"name":"a"}` {
		t.Errorf("task read back recorded as %s, %v", b2, err)
	}
	m := MethodSpec{Name: "fast", Type: "rsr", Params: map[string]any{"sigma": []float64{1}}}
	if b, err := json.Marshal(m); err != nil || string(b) != `{"name":"fast","sigma":[1],"type":"rsr"}` {
		t.Errorf("method recorded as %s, %v", b, err)
	}
}

func TestParsePlot(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Plot
	}{{"", PlotNone}, {"none", PlotNone}, {"cmc", PlotCMC}, {"bars", PlotBars}, {"energy", PlotEnergy}, {"roc", PlotROC}} {
		got, err := ParsePlot(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParsePlot(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if tc.in != "" && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	for _, bad := range []string{"CMC", "bar", "pie", " cmc"} {
		if _, err := ParsePlot(bad); err == nil || !strings.Contains(err.Error(), "want cmc, bars, energy, roc or none") {
			t.Errorf("ParsePlot(%q): %v", bad, err)
		}
	}
	// The record of the config names the plot; none is left out.
	c, _, err := Decode([]byte(base + "plot: bars\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(c); !strings.Contains(string(b), `"plot":"bars"`) {
		t.Errorf("config recorded as %s", b)
	}
	c.Plot = PlotNone
	if b, _ := json.Marshal(c); strings.Contains(string(b), `"plot"`) {
		t.Errorf("config recorded as %s", b)
	}
	if _, err := json.Marshal(Plot(9)); err == nil {
		t.Error("an invalid Plot marshals")
	}
}
