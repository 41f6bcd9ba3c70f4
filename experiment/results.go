package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/covpipe/covpipe/internal/atomicfile"
	"github.com/covpipe/covpipe/plots"
)

// Results is everything a run measured: the content of results.json.
type Results struct {
	Name    string    `json:"name"`
	Version string    `json:"version"`
	Seed    uint64    `json:"seed"`
	Repeats int       `json:"repeats"`
	Workers int       `json:"workers"`
	Cores   int       `json:"cores"`
	Started time.Time `json:"started"`
	// Seconds is the wall time of the whole run.
	Seconds float64 `json:"seconds"`
	// Timings holds seconds per stage: data (synthetic draws), extraction
	// (descriptors, 0 when cached), pairwise (Stein divergences and other
	// shared matrices), methods (summed over methods and repeats).
	Timings map[string]float64 `json:"timings"`
	// DataRoot is the folder dataset paths were resolved against.
	DataRoot string `json:"data_root,omitempty"`
	// Config is the experiment as run, flag overrides applied.
	Config  *Config  `json:"config"`
	Results []Result `json:"results"`
}

// Result holds one method's numbers on one task. Accuracies are in percent.
type Result struct {
	Task   string `json:"task"`
	Method string `json:"method"`
	// AccuracyMean and AccuracyStd summarise Runs; the standard deviation
	// is the sample one (n−1 denominator), 0 for a single run.
	AccuracyMean float64 `json:"accuracy_mean"`
	AccuracyStd  float64 `json:"accuracy_std"`
	// Seconds is the time spent in this method summed over repeats
	// (kernel matrices, sparse coding, classification), as measured on the
	// worker that ran each repeat.
	Seconds float64 `json:"seconds"`
	// Runs is the accuracy of every repeat.
	Runs []float64 `json:"runs"`
	// Degenerate and Unconverged count, per repeat, the test queries whose
	// sparse code was all zeros or whose solver hit its sweep cap.
	Degenerate  []int `json:"degenerate_codes"`
	Unconverged []int `json:"unconverged_codes"`
	// Lambda summarises the λ that test queries were coded with, over all
	// repeats (sparse-coding methods only): with lambda_ratio each query
	// has its own, ratio·λ_max(x).
	Lambda *Spread `json:"lambda,omitempty"`
	// Params records the hyper-parameters used in each repeat (chosen by
	// cross-validation inside the training set when lists were given).
	Params []map[string]float64 `json:"params"`
	// TrainItems and TestItems count each repeat's split.
	TrainItems []int `json:"train_items"`
	TestItems  []int `json:"test_items"`
	// Classes names the classes, in the order of PerClass and Confusion.
	Classes []string `json:"classes,omitempty"`
	// PerClass is each class's accuracy over all repeats (null: untested).
	PerClass []Percent `json:"per_class_accuracy,omitempty"`
	// Confusion[t][p] counts test items of class t predicted as p, summed
	// over repeats.
	Confusion [][]int `json:"confusion,omitempty"`
	// CMC and CMCStd are the mean and standard deviation over repeats of
	// the recognition rate at ranks 1..R; CMCRuns holds every repeat's.
	CMC     []float64   `json:"cmc_mean,omitempty"`
	CMCStd  []float64   `json:"cmc_std,omitempty"`
	CMCRuns [][]float64 `json:"cmc_runs,omitempty"`
	// Curve and CurveStd are, for energy-curve tasks (Fig. 7), the mean and
	// standard deviation over repeats of the energy J of Eqn. 10 after 0,
	// 1, ... iterations; CurveRuns holds every repeat's. AccuracyMean and
	// AccuracyStd then hold the final J, not an accuracy.
	Curve     []float64   `json:"energy_mean,omitempty"`
	CurveStd  []float64   `json:"energy_std,omitempty"`
	CurveRuns [][]float64 `json:"energy_runs,omitempty"`
	// Notes records what the protocol had to adapt (dropped classes or
	// regions, short classes).
	Notes []string `json:"notes,omitempty"`
}

// Spread summarises a sample: its extremes, median and mean.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
}

// spreadOf returns the Spread of v, nil when v is empty. It sorts v.
func spreadOf(v []float64) *Spread {
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + med) / 2
	}
	var mean float64
	for _, x := range v {
		mean += x / float64(len(v))
	}
	return &Spread{Min: v[0], Median: med, Max: v[len(v)-1], Mean: mean}
}

// zeroCodeShare is the share of all-zero sparse codes above which a
// result's warning suggests lambda_ratio.
const zeroCodeShare = 0.01

// Warnings returns one line per result whose all-zero sparse codes exceed
// 1% of its test queries, naming the λ and σ in force and suggesting
// lambda_ratio, for the terminal and summary.md.
func (r *Results) Warnings() []string {
	var out []string
	for _, x := range r.Results {
		zero, total := sum(x.Degenerate), sum(x.TestItems)
		if total == 0 || float64(zero) <= zeroCodeShare*float64(total) {
			continue
		}
		var used []string
		for _, key := range []string{"lambda", "lambda_ratio", "sigma"} {
			var vals []string
			for _, p := range x.Params {
				if v, ok := p[key]; ok && !slices.Contains(vals, fmt.Sprint(v)) {
					vals = append(vals, fmt.Sprint(v))
				}
			}
			if len(vals) > 0 {
				used = append(used, key+" = "+strings.Join(vals, ", "))
			}
		}
		msg := fmt.Sprintf("%s / %s: %d of %d sparse codes (%.1f%%) are all zero, so their predictions are arbitrary (%s)",
			x.Task, x.Method, zero, total, 100*float64(zero)/float64(total), strings.Join(used, "; "))
		if x.Lambda != nil && x.Lambda.Min != x.Lambda.Max {
			msg += fmt.Sprintf("; λ per query %.3g to %.3g", x.Lambda.Min, x.Lambda.Max)
		}
		if _, relative := firstParam(x.Params, "lambda_ratio"); !relative {
			msg += ". λ is too large for this kernel's values, which move with σ, the ridge and d: try lambda_ratio (e.g. 0.1), which sets λ relative to each query's λ_max"
		} else {
			msg += ". Lower lambda_ratio"
		}
		out = append(out, msg+".")
	}
	return out
}

// firstParam returns the first repeat's value of a parameter.
func firstParam(ps []map[string]float64, key string) (float64, bool) {
	if len(ps) == 0 {
		return 0, false
	}
	v, ok := ps[0][key]
	return v, ok
}

// meanStd returns the mean and the sample standard deviation.
func meanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)-1))
}

// Write writes results.json, summary.md and the configured figures into
// dir (created if needed), each atomically.
func (r *Results) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n')); err != nil {
		return err
	}
	return r.WriteReport(dir)
}

// WriteReport writes summary.md and the figures into dir from the results
// alone, as `covpipe report` does without recomputing anything.
func (r *Results) WriteReport(dir string) error {
	figs, err := r.writePlots(dir)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "summary.md"), []byte(r.summary(figs)))
}

// writePlots draws the figure the config asks for and returns the file
// names written.
func (r *Results) writePlots(dir string) ([]string, error) {
	if r.Config == nil {
		return nil, nil
	}
	tasks, methods := r.axes()
	cell := r.cells()
	var files []string
	switch r.Config.Plot {
	case "cmc":
		for _, t := range tasks {
			var series []plots.Series
			for _, m := range methods {
				if x, ok := cell[[2]string{t, m}]; ok && len(x.CMC) > 0 {
					series = append(series, plots.Series{Name: m, Y: x.CMC, Err: x.CMCStd})
				}
			}
			if len(series) == 0 {
				continue
			}
			name := "cmc-" + fileSafe(t) + ".png"
			title := fmt.Sprintf("%s: %s (mean over %d repeats)", r.Name, t, r.Repeats)
			if err := plots.CMC(filepath.Join(dir, name), title, series); err != nil {
				return nil, fmt.Errorf("CMC plot: %w", err)
			}
			files = append(files, name)
		}
	case "bars":
		b := plots.Bars{Title: fmt.Sprintf("%s: accuracy (mean ± std over %d repeats)", r.Name, r.Repeats), YLabel: "Recognition accuracy (%)", Groups: tasks}
		for _, m := range methods {
			s := plots.Series{Name: m}
			for _, t := range tasks {
				x := cell[[2]string{t, m}]
				s.Y = append(s.Y, x.AccuracyMean)
				s.Err = append(s.Err, x.AccuracyStd)
			}
			b.Series = append(b.Series, s)
		}
		if err := plots.BarChart(filepath.Join(dir, "accuracy.png"), b); err != nil {
			return nil, fmt.Errorf("bar chart: %w", err)
		}
		files = append(files, "accuracy.png")
	case "energy":
		for _, t := range tasks {
			var series []plots.Series
			for _, m := range methods {
				if x, ok := cell[[2]string{t, m}]; ok && len(x.Curve) > 0 {
					series = append(series, plots.Series{Name: m, Y: x.Curve})
				}
			}
			if len(series) == 0 {
				continue
			}
			name := "energy-" + fileSafe(t) + ".png"
			title := fmt.Sprintf("%s: %s, representation energy J (Eqn. 10), mean over %d repeats", r.Name, t, r.Repeats)
			if err := plots.Lines(filepath.Join(dir, name), title, "Iteration", "J", 0, series); err != nil {
				return nil, fmt.Errorf("energy plot: %w", err)
			}
			files = append(files, name)
		}
	}
	return files, nil
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

func (r *Results) cells() map[[2]string]Result {
	cell := map[[2]string]Result{}
	for _, x := range r.Results {
		cell[[2]string{x.Task, x.Method}] = x
	}
	return cell
}

// ReadResults reads a results.json written by Results.Write. It returns an
// error naming path when the file cannot be read or parsed, or when it
// holds no results or a result without its task and method: JSON that
// parses but is not covpipe's (`{}`, say) is refused rather than
// reported as an empty table.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Results) == 0 {
		return nil, fmt.Errorf("%s: no results: not a results.json written by covpipe run", path)
	}
	for i, x := range r.Results {
		if x.Task == "" || x.Method == "" {
			return nil, fmt.Errorf("%s: result %d has no task or method: not a results.json written by covpipe run", path, i)
		}
	}
	return &r, nil
}

// Notes returns what the protocols had to adapt, once per task, as
// "task: note" (a class with too few items for train_per_class, say, named
// by its label), in the order of the results.
func (r *Results) Notes() []string {
	var out []string
	for _, x := range r.Results {
		for _, n := range x.Notes {
			if s := x.Task + ": " + n; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Table renders accuracies as a Markdown table with one row per task and
// one column per method (the layout of the paper's Tables 1 and 2),
// mean ± std, and a final row of run time per method in seconds.
func (r *Results) Table() string {
	tasks, methods := r.axes()
	cell := r.cells()
	var b strings.Builder
	b.WriteString("| task |")
	for _, m := range methods {
		fmt.Fprintf(&b, " %s |", m)
	}
	b.WriteString("\n|---|")
	for range methods {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, t := range tasks {
		fmt.Fprintf(&b, "| %s |", t)
		for _, m := range methods {
			if x, ok := cell[[2]string{t, m}]; ok && len(x.Curve) > 0 {
				fmt.Fprintf(&b, " J %.4g ± %.2g |", x.AccuracyMean, x.AccuracyStd)
			} else if ok {
				fmt.Fprintf(&b, " %.2f ± %.1f |", x.AccuracyMean, x.AccuracyStd)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| run time (s) |")
	for _, m := range methods {
		var s float64
		for _, x := range r.Results {
			if x.Method == m {
				s += x.Seconds
			}
		}
		fmt.Fprintf(&b, " %.1f |", s)
	}
	b.WriteString("\n")
	return b.String()
}

// Summary renders summary.md: the table and how it was made.
func (r *Results) Summary() string { return r.summary(nil) }

func (r *Results) summary(figs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Name)
	if r.Config != nil && r.Config.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(r.Config.Description))
	}
	fmt.Fprintf(&b, "Recognition accuracy in %% (mean ± sample standard deviation over %d repeats). "+
		"Run time: seconds spent in each method (kernel matrices, sparse coding, classification), "+
		"summed over tasks and repeats, on %d worker(s).\n\n", r.Repeats, r.Workers)
	b.WriteString(r.Table())
	tasks, methods := r.axes()
	cell := r.cells()
	for _, t := range tasks {
		r.seriesTable(&b, t, methods, cell, "rank", 1,
			"cumulative matching characteristic\n\nRecognition rate in % at rank r (mean ± std over repeats).",
			func(x Result) ([]float64, []float64) { return x.CMC, x.CMCStd }, "%.2f ± %.1f")
	}
	for _, t := range tasks {
		r.seriesTable(&b, t, methods, cell, "iteration", 0,
			"representation energy\n\nJ of Eqn. 10 after each iteration (0: the initial dictionary), mean ± std over repeats; cells of the table above give the last.",
			func(x Result) ([]float64, []float64) { return x.Curve, x.CurveStd }, "%.5g ± %.2g")
	}
	if ps := r.paramSummary(); ps != "" {
		b.WriteString("\n## Parameters\n\n" + ps)
	}
	if len(figs) > 0 {
		b.WriteString("\n## Figures\n\n")
		for _, f := range figs {
			fmt.Fprintf(&b, "![%s](%s)\n", f, f)
		}
	}
	fmt.Fprintf(&b, "\nWall time %.1f s on %d cores; seed %d; covpipe %s; started %s.",
		r.Seconds, r.Cores, r.Seed, r.Version, r.Started.Format(time.RFC3339))
	if len(r.Timings) > 0 {
		var parts []string
		for _, k := range []string{"data", "extraction", "pairwise", "methods"} {
			if v, ok := r.Timings[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f s", k, v))
			}
		}
		fmt.Fprintf(&b, " Stages: %s.", strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	var notes []string
	for _, w := range r.Warnings() {
		notes = append(notes, "- "+w)
	}
	for _, x := range r.Results {
		if n := sum(x.Degenerate); n > 0 && float64(n) <= zeroCodeShare*float64(sum(x.TestItems)) {
			notes = append(notes, fmt.Sprintf("- %s / %s: %d test queries had all-zero sparse codes (arbitrary predictions).", x.Task, x.Method, n))
		}
		if n := sum(x.Unconverged); n > 0 {
			notes = append(notes, fmt.Sprintf("- %s / %s: %d sparse codes hit the solver's sweep cap.", x.Task, x.Method, n))
		}
	}
	seen := map[string]bool{}
	for _, x := range r.Results {
		for _, n := range x.Notes {
			if key := x.Task + n; !seen[key] {
				seen[key] = true
				notes = append(notes, fmt.Sprintf("- %s: %s.", x.Task, n))
			}
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n\n" + strings.Join(notes, "\n") + "\n")
	}
	return b.String()
}

// seriesTable writes, for task t, a section titled title with a table of
// the series that get gives each method (CMC or energy curves): one row
// per index from first, one column per method that has the series, cells
// "mean ± std" in the format cellFmt.
func (r *Results) seriesTable(b *strings.Builder, t string, methods []string, cell map[[2]string]Result, index string, first int,
	title string, get func(Result) (mean, std []float64), cellFmt string) {
	var rows []Result
	for _, m := range methods {
		if x, ok := cell[[2]string{t, m}]; ok {
			if mean, _ := get(x); len(mean) > 0 {
				rows = append(rows, x)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s: %s\n\n| %s |", t, title, index)
	for _, x := range rows {
		fmt.Fprintf(b, " %s |", x.Method)
	}
	b.WriteString("\n|---:|")
	for range rows {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	n, _ := get(rows[0])
	for k := range n {
		fmt.Fprintf(b, "| %d |", k+first)
		for _, x := range rows {
			if mean, std := get(x); k < len(mean) {
				fmt.Fprintf(b, " "+cellFmt+" |", mean[k], std[k])
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
}

// paramSummary lists, per method, the parameter values used and how often
// cross-validation chose each (when it had a choice).
func (r *Results) paramSummary() string {
	var b strings.Builder
	_, methods := r.axes()
	for _, m := range methods {
		counts := map[string]int{}
		var total int
		for _, x := range r.Results {
			if x.Method != m {
				continue
			}
			for _, p := range x.Params {
				if len(p) == 0 {
					continue
				}
				keys := make([]string, 0, len(p))
				for k := range p {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				var kv []string
				for _, k := range keys {
					kv = append(kv, fmt.Sprintf("%s=%g", k, p[k]))
				}
				counts[strings.Join(kv, " ")]++
				total++
			}
		}
		if total == 0 {
			continue
		}
		type pc struct {
			p string
			n int
		}
		var list []pc
		for p, n := range counts {
			list = append(list, pc{p, n})
		}
		sort.Slice(list, func(a, c int) bool {
			if list[a].n != list[c].n {
				return list[a].n > list[c].n
			}
			return list[a].p < list[c].p
		})
		var parts []string
		for _, x := range list {
			parts = append(parts, fmt.Sprintf("%s (%d of %d)", x.p, x.n, total))
		}
		fmt.Fprintf(&b, "- %s: %s\n", m, strings.Join(parts, "; "))
	}
	return b.String()
}

// axes returns task and method names in first-appearance order.
func (r *Results) axes() (tasks, methods []string) {
	seenT, seenM := map[string]bool{}, map[string]bool{}
	for _, x := range r.Results {
		if !seenT[x.Task] {
			seenT[x.Task] = true
			tasks = append(tasks, x.Task)
		}
		if !seenM[x.Method] {
			seenM[x.Method] = true
			methods = append(methods, x.Method)
		}
	}
	return tasks, methods
}
