package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/covpipe/covpipe/internal/atomicfile"
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
	// DataSeconds is the time spent making the task's data, shared by its
	// methods.
	DataSeconds float64 `json:"data_seconds"`
	// Runs is the accuracy of every repeat.
	Runs []float64 `json:"runs"`
	// Degenerate and Unconverged count, per repeat, the test queries whose
	// sparse code was all zeros or whose solver hit its sweep cap.
	Degenerate  []int `json:"degenerate_codes"`
	Unconverged []int `json:"unconverged_codes"`
	// Params records the hyper-parameters used in each repeat.
	Params []map[string]float64 `json:"params"`
}

// accuracy returns the percentage of predictions equal to the truth.
func accuracy(pred, truth []int) float64 {
	if len(truth) == 0 {
		return math.NaN()
	}
	c := 0
	for i := range truth {
		if pred[i] == truth[i] {
			c++
		}
	}
	return 100 * float64(c) / float64(len(truth))
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

// Write writes results.json and summary.md into dir (created if needed),
// each atomically.
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
	return atomicfile.WriteFile(filepath.Join(dir, "summary.md"), []byte(r.Summary()))
}

// ReadResults reads a results.json.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Table renders accuracies as a Markdown table with one row per task and
// one column per method (the layout of the paper's Tables 1 and 2),
// mean ± std, and a final row of run time per method in seconds.
func (r *Results) Table() string {
	tasks, methods := r.axes()
	cell := map[[2]string]Result{}
	for _, x := range r.Results {
		cell[[2]string{x.Task, x.Method}] = x
	}
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
			if x, ok := cell[[2]string{t, m}]; ok {
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
func (r *Results) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Name)
	if r.Config != nil && r.Config.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(r.Config.Description))
	}
	fmt.Fprintf(&b, "Recognition accuracy in %% (mean ± sample standard deviation over %d repeats). "+
		"Run time: seconds spent in each method (kernel matrices, sparse coding, classification), "+
		"summed over tasks and repeats, on %d worker(s).\n\n", r.Repeats, r.Workers)
	b.WriteString(r.Table())
	fmt.Fprintf(&b, "\nWall time %.1f s on %d cores; seed %d; covpipe %s; started %s.\n",
		r.Seconds, r.Cores, r.Seed, r.Version, r.Started.Format(time.RFC3339))
	var notes []string
	for _, x := range r.Results {
		if n := sum(x.Degenerate); n > 0 {
			notes = append(notes, fmt.Sprintf("- %s / %s: %d test queries had all-zero sparse codes (arbitrary predictions; lambda too large).", x.Task, x.Method, n))
		}
		if n := sum(x.Unconverged); n > 0 {
			notes = append(notes, fmt.Sprintf("- %s / %s: %d sparse codes hit the solver's sweep cap.", x.Task, x.Method, n))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nWarnings:\n\n" + strings.Join(notes, "\n") + "\n")
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
