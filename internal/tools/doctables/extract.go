package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/internal/atomicfile"
)

// Extract is what the docs keep of one run: aggregate scores and the
// settings that produced them, nothing derived from the data beyond the
// scores (no class names, confusion matrices, per-class accuracies, paths
// or data roots).
type Extract struct {
	ID string `json:"id"`
	// Command reproduces the run; Variant prints its config (runs with
	// overrides only).
	Command string `json:"command"`
	Variant string `json:"variant_command,omitempty"`
	// Version is covpipe's, as recorded by the run.
	Version string `json:"version"`
	Seed    uint64 `json:"seed"`
	Repeats int    `json:"repeats"`
	// Config is the shipped config's data with the run's overrides applied
	// (before --quick and --methods), ConfigFile the file it came from and
	// Flags the flags the run took.
	ConfigFile string   `json:"config_file"`
	Flags      []string `json:"flags,omitempty"`
	Config     any      `json:"config"`
	// Seconds is the run's wall time (never used in accuracy tables).
	Seconds float64         `json:"seconds"`
	Results []ExtractResult `json:"results"`
}

// ExtractResult is one method's scores on one task.
type ExtractResult struct {
	Task   string `json:"task"`
	Method string `json:"method"`
	// Mean and Std are the accuracy's mean and sample standard deviation
	// over repeats in percent, Runs every repeat's (none for energy
	// curves).
	Mean *float64  `json:"accuracy_mean,omitempty"`
	Std  *float64  `json:"accuracy_std,omitempty"`
	Runs []float64 `json:"runs,omitempty"`
	Curves
	// Params counts, per parameter, how many repeats used each value.
	Params map[string][]ParamCount `json:"params,omitempty"`
	// PartParams counts, for a method fused over regions, per parameter,
	// how many regions used each value, over all repeats (a region is
	// counted once per repeat): the choices made region by region.
	PartParams map[string][]ParamCount `json:"part_params,omitempty"`
	// BestOf is the task a "best" task took this method's result from.
	BestOf string `json:"best_of,omitempty"`
	// Chosen counts, for a best method, the repeats that chose each
	// method, the most chosen first.
	Chosen []ChoiceCount `json:"chosen,omitempty"`
	// CVEstimate is, for a method that chooses by cross-validation, each
	// repeat's cross-validated accuracy of its choice, beside Runs.
	CVEstimate []float64 `json:"cv_estimate,omitempty"`
	// Unconverged and Degenerate count sparse codes over all repeats.
	Unconverged int `json:"unconverged_codes,omitempty"`
	Degenerate  int `json:"degenerate_codes,omitempty"`
	// Seconds is the method's time summed over repeats.
	Seconds float64 `json:"seconds"`
}

// Curves are the measures of a result that an extract copies from
// results.json as they stand.
type Curves struct {
	// CMC and CMCStd: the recognition rate at ranks 1, 2, ...
	CMC    []float64 `json:"cmc_mean,omitempty"`
	CMCStd []float64 `json:"cmc_std,omitempty"`
	// Energy and EnergyStd: J of Eqn. 10 after 0, 1, ... iterations.
	Energy    []float64 `json:"energy_mean,omitempty"`
	EnergyStd []float64 `json:"energy_std,omitempty"`
	// AUC, TAR and Identified are an open-set result's area under the
	// ROC of known against unknown items, its true accept rate (%) at the
	// task's false accept rate, and the known items accepted and right
	// (%) at that rate; the result's Mean and Std are then the accuracy
	// on the known items without rejection.
	AUC        *Stat `json:"auc,omitempty"`
	TAR        *Stat `json:"tar_at_far,omitempty"`
	Identified *Stat `json:"identification_at_far,omitempty"`
}

// Stat is a measure's mean and sample standard deviation over repeats.
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// ParamCount is one value of a parameter and how many repeats chose it.
type ParamCount struct {
	Value   float64 `json:"value"`
	Repeats int     `json:"repeats"`
}

// ChoiceCount is how many repeats a best method chose Method in.
type ChoiceCount struct {
	Method  string `json:"method"`
	Repeats int    `json:"repeats"`
}

// choiceCounts counts the methods of chosen, the most chosen first (ties
// in order of first choice).
func choiceCounts(chosen []string) []ChoiceCount {
	var out []ChoiceCount
	for _, m := range chosen {
		i := slices.IndexFunc(out, func(c ChoiceCount) bool { return c.Method == m })
		if i < 0 {
			out = append(out, ChoiceCount{Method: m})
			i = len(out) - 1
		}
		out[i].Repeats++
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Repeats > out[j].Repeats })
	return out
}

// results is the part of covpipe's results.json that extracts read.
type results struct {
	Version string          `json:"version"`
	Seed    uint64          `json:"seed"`
	Repeats int             `json:"repeats"`
	Seconds float64         `json:"seconds"`
	Config  json.RawMessage `json:"config"`
	Results []struct {
		Task         string               `json:"task"`
		Method       string               `json:"method"`
		AccuracyMean *float64             `json:"accuracy_mean"`
		AccuracyStd  *float64             `json:"accuracy_std"`
		Seconds      float64              `json:"seconds"`
		Runs         []float64            `json:"runs"`
		Degenerate   []int                `json:"degenerate_codes"`
		Unconverged  []int                `json:"unconverged_codes"`
		Params       []map[string]float64 `json:"params"`
		Notes        []string             `json:"notes"`
		Chosen       []string             `json:"chosen"`
		CVEstimate   []float64            `json:"cv_estimate"`
		Parts        []struct {
			PartParams []map[string]float64 `json:"part_params"`
		} `json:"parts"`
		Curves
	} `json:"results"`
}

// NewExtract reads a run's results.json, checks that it was run with the
// run's config and flags, and returns the run's extract.
func NewExtract(root string, r *Run, resultsPath string) (*Extract, error) {
	var res results
	if err := readJSON(resultsPath, &res); err != nil {
		return nil, err
	}
	variant, err := r.Variant(root)
	if err != nil {
		return nil, err
	}
	if err := r.matches(variant, &res); err != nil {
		return nil, fmt.Errorf("%s is not a result of run %s: %w", resultsPath, r.ID, err)
	}
	data, err := yamlData(variant)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	e := &Extract{
		ID: r.ID, Command: r.Command(), Version: res.Version,
		Seed: res.Seed, Repeats: res.Repeats, ConfigFile: r.Config,
		Flags: r.Args(DataPlaceholder), Config: data, Seconds: res.Seconds,
	}
	if len(r.Overrides) > 0 {
		e.Variant = toolCommand + " config " + r.ID
	}
	for _, x := range res.Results {
		out := ExtractResult{Task: x.Task, Method: x.Method, Seconds: x.Seconds, Curves: x.Curves,
			Unconverged: sum(x.Unconverged), Degenerate: sum(x.Degenerate),
			Params: paramCounts(x.Params), Chosen: choiceCounts(x.Chosen), CVEstimate: x.CVEstimate}
		var parts []map[string]float64
		for _, p := range x.Parts {
			parts = append(parts, p.PartParams...)
		}
		out.PartParams = paramCounts(parts)
		if len(x.Energy) == 0 {
			// Energy curves hold J, not an accuracy, in accuracy_mean.
			out.Mean, out.Std, out.Runs = x.AccuracyMean, x.AccuracyStd, x.Runs
		}
		for _, n := range x.Notes {
			if rest, ok := strings.CutPrefix(n, "best of "); ok {
				if i := strings.LastIndex(rest, ": "); i >= 0 {
					out.BestOf = rest[i+2:]
				}
			}
		}
		e.Results = append(e.Results, out)
	}
	return e, nil
}

// matches checks that res was run from variant with r's flags: the same
// config as run (flags applied), seed and repeats.
func (r *Run) matches(variant []byte, res *results) error {
	plan, err := experiment.Parse(variant)
	if err != nil {
		return fmt.Errorf("the run's config: %w", err)
	}
	cfg := plan.Config
	if cfg.Name == "" {
		cfg.Name = strings.TrimSuffix(filepath.Base(r.Config), filepath.Ext(r.Config))
	}
	if r.Quick {
		if err := plan.Quick(); err != nil {
			return err
		}
	}
	if len(r.Methods) > 0 {
		if err := plan.KeepMethods(r.Methods); err != nil {
			return err
		}
	}
	if r.Repeats > 0 {
		cfg.Repeats = r.Repeats
	}
	if r.Seed != nil {
		cfg.Seed = *r.Seed
	}
	want, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	if len(res.Config) == 0 {
		return errors.New("it records no config")
	}
	var got map[string]any
	if err := json.Unmarshal(res.Config, &got); err != nil {
		return err
	}
	delete(got, "workers") // --workers does not change results
	var w map[string]any
	if err := json.Unmarshal(want, &w); err != nil {
		return err
	}
	delete(w, "workers")
	if d := firstDifference("config", w, got); d != "" {
		return fmt.Errorf("config as run differs: %s", d)
	}
	if res.Seed != cfg.Seed || res.Repeats != cfg.Repeats {
		return fmt.Errorf("seed %d and %d repeats, want %d and %d", res.Seed, res.Repeats, cfg.Seed, cfg.Repeats)
	}
	return nil
}

// firstDifference describes the first place where JSON values want and
// got differ, "" when they are equal.
func firstDifference(at string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := firstDifference(at+"."+k, w[k], g[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		for i := range w {
			if d := firstDifference(fmt.Sprintf("%s[%d]", at, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("%s is %s, want %s", at, compactJSON(got), compactJSON(want))
}

func compactJSON(v any) string {
	if v == nil {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

func sum(v []int) int {
	var s int
	for _, x := range v {
		s += x
	}
	return s
}

func paramCounts(params []map[string]float64) map[string][]ParamCount {
	if len(params) == 0 {
		return nil
	}
	out := map[string][]ParamCount{}
	for _, p := range params {
		for k, v := range p {
			i := slices.IndexFunc(out[k], func(c ParamCount) bool { return c.Value == v })
			if i < 0 {
				out[k] = append(out[k], ParamCount{Value: v})
				i = len(out[k]) - 1
			}
			out[k][i].Repeats++
		}
	}
	for _, c := range out {
		sort.Slice(c, func(i, j int) bool { return c[i].Value < c[j].Value })
	}
	return out
}

// ExtractPath is where run id's extract lives.
func ExtractPath(root, id string) string {
	return filepath.Join(root, "docs", "runs", id+".json")
}

// Write writes the extract atomically, as indented JSON.
func (e *Extract) Write(path string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// ReadExtract reads the extract at path.
func ReadExtract(path string) (*Extract, error) {
	var e Extract
	if err := readJSON(path, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// readJSON decodes the JSON file at path into v; a decoding error names
// the file.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Result returns the extract's result of method on task.
func (e *Extract) Result(task, method string) *ExtractResult {
	for i := range e.Results {
		if e.Results[i].Task == task && e.Results[i].Method == method {
			return &e.Results[i]
		}
	}
	return nil
}

// presentationKeys are the config's top-level keys that change only how
// a run's results are drawn, never the results an extract records.
var presentationKeys = []string{"plot"}

// relevant is the part of a config's JSON value that the results of a run
// with the flag --methods methods (and --quick when quick) depend on: the
// config without presentationKeys, without its quick section unless
// quick, and, when methods is not empty, with only those methods listed.
// Giving a config a figure, a method that a run leaves out, or a quick
// subset, leaves the extract of a run that does not use them current.
func relevant(config any, methods []string, quick bool) any {
	m, ok := config.(map[string]any)
	if !ok {
		return config
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !slices.Contains(presentationKeys, k) && (quick || k != "quick") {
			out[k] = v
		}
	}
	if list, ok := out["methods"].([]any); ok && len(methods) > 0 {
		var kept []any
		for _, x := range list {
			if mm, ok := x.(map[string]any); ok && slices.Contains(methods, fmt.Sprint(mm["name"])) {
				kept = append(kept, x)
			}
		}
		out["methods"] = kept
	}
	return out
}

// stale says how the run's config now differs from the one its extract
// was made with ("" when it does not).
func (e *Extract) stale(root string, r *Run) (string, error) {
	variant, err := r.Variant(root)
	if err != nil {
		return "", err
	}
	data, err := yamlData(variant)
	if err != nil {
		return "", fmt.Errorf("run %s: %w", r.ID, err)
	}
	if e.ConfigFile != r.Config {
		return fmt.Sprintf("made from %s, the manifest says %s", e.ConfigFile, r.Config), nil
	}
	if d := firstDifference("config", relevant(data, r.Methods, r.Quick), relevant(e.Config, r.Methods, r.Quick)); d != "" {
		return d, nil
	}
	if !slices.Equal(e.Flags, r.Args(DataPlaceholder)) {
		return fmt.Sprintf("flags %q, the manifest says %q", e.Flags, r.Args(DataPlaceholder)), nil
	}
	return "", nil
}
