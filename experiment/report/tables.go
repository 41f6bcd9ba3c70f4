package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/covpipe/covpipe/experiment/results"
)

// Tables returns the tables of r for the terminal, each under a line
// saying what it holds: the accuracy table (AccuracyTable) when r holds
// accuracy results, the energy table (EnergyTable) when it holds energy
// curves and the open-set tables (OpenSetTable) when it holds open-set
// results, separated by blank lines.
func Tables(r *results.Results) string {
	var parts []string
	if t := AccuracyTable(r); t != "" {
		parts = append(parts, fmt.Sprintf("%s: accuracy %% (mean ± std over %d repeats)\n\n%s", r.Name, r.Repeats, t))
	}
	if t := EnergyTable(r); t != "" {
		parts = append(parts, fmt.Sprintf("%s: representation energy J (Eqn. 10) after the last iteration, mean ± std over %d repeats\n\n%s", r.Name, r.Repeats, t))
	}
	if t := OpenSetTable(r); t != "" {
		parts = append(parts, fmt.Sprintf("%s: open-set rejection of unknown classes, mean ± std over %d repeats\n\n%s", r.Name, r.Repeats, t))
	}
	return strings.Join(parts, "\n")
}

// AccuracyTable renders r's accuracy results as a Markdown table with one
// row per task and one column per method (the layout of the paper's
// Tables 1 and 2), cells "mean ± std" in percent, and a final row of the
// seconds each method ran. It returns "" when r holds no accuracy results.
func AccuracyTable(r *results.Results) string {
	return layoutOf(r.Results, results.KindAccuracy).table(accuracyCell)
}

// EnergyTable renders r's energy results as AccuracyTable renders
// accuracies: one row per task, one column per method (with the true
// sources as a reference column), cells the mean ± std over repeats of
// the representation energy J (Eqn. 10) after the last iteration. It
// returns "" when r holds no energy results.
func EnergyTable(r *results.Results) string {
	return layoutOf(r.Results, results.KindEnergy).table(energyCell)
}

// OpenSetTable renders r's open-set results as Markdown, one table per
// task with one row per method: what its answers are thresholded by (the
// SCI or the score), the area under the ROC of known against unknown
// test items, and, at the task's false accept rate, the true accept rate
// of known items, their identification rate (accepted and right) and the
// confidence threshold, then the accuracy on known items without
// rejection; cells "mean ± std" over repeats. It returns "" when r holds
// no open-set results.
func OpenSetTable(r *results.Results) string {
	l := layoutOf(r.Results, results.KindOpenSet)
	var b strings.Builder
	for i, t := range l.tasks {
		if i > 0 {
			b.WriteString("\n")
		}
		var far float64
		for _, m := range l.methods {
			if x, ok := l.cell[[2]string{t, m}]; ok {
				far = x.FAR
				break
			}
		}
		if len(l.tasks) > 1 {
			fmt.Fprintf(&b, "Task %s:\n\n", t)
		}
		fmt.Fprintf(&b, "| method | rejects by | AUC | TAR at %g%% FAR | identified at %g%% FAR | threshold | accuracy, known items |\n", far, far)
		b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
		for _, m := range l.methods {
			x, ok := l.cell[[2]string{t, m}]
			if !ok {
				continue
			}
			var th float64
			for _, v := range x.Thresholds {
				th += v / float64(len(x.Thresholds))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.3f | %.2f ± %.1f |\n", m, x.Rejection,
				statCell(x.AUC, "%.3f ± %.3f"), statCell(x.TAR, "%.1f ± %.1f"), statCell(x.Identification, "%.1f ± %.1f"), th, x.AccuracyMean, x.AccuracyStd)
		}
	}
	return b.String()
}

// statCell formats s's mean and standard deviation, "–" for none.
func statCell(s *results.Stat, format string) string {
	if s == nil {
		return "–"
	}
	return fmt.Sprintf(format, s.Mean, s.Std)
}

func accuracyCell(x results.Result) string {
	return fmt.Sprintf("%.2f ± %.1f", x.AccuracyMean, x.AccuracyStd)
}

func energyCell(x results.Result) string {
	return fmt.Sprintf("%.4g ± %.2g", x.FinalEnergy, x.FinalEnergyStd)
}

// layout is a set of results as a table: tasks and methods in order of
// first appearance, and each task's result for each method.
type layout struct {
	tasks, methods []string
	results        []results.Result
	cell           map[[2]string]results.Result
}

// layoutOf lays out the results of one kind.
func layoutOf(rs []results.Result, kind results.Kind) layout {
	l := layout{cell: map[[2]string]results.Result{}}
	for _, x := range rs {
		if x.Kind != kind {
			continue
		}
		if !slices.Contains(l.tasks, x.Task) {
			l.tasks = append(l.tasks, x.Task)
		}
		if !slices.Contains(l.methods, x.Method) {
			l.methods = append(l.methods, x.Method)
		}
		l.results = append(l.results, x)
		l.cell[[2]string{x.Task, x.Method}] = x
	}
	return l
}

// table renders the layout as a Markdown table of format(result) per task
// and method ("–" where a method has no result) with a final row of the
// seconds each method ran, summed over tasks; "" for no results.
func (l layout) table(format func(results.Result) string) string {
	if len(l.results) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| task |")
	for _, m := range l.methods {
		fmt.Fprintf(&b, " %s |", m)
	}
	b.WriteString("\n|---|")
	for range l.methods {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, t := range l.tasks {
		fmt.Fprintf(&b, "| %s |", t)
		for _, m := range l.methods {
			if x, ok := l.cell[[2]string{t, m}]; ok {
				fmt.Fprintf(&b, " %s |", format(x))
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| run time (s) |")
	for _, m := range l.methods {
		var s float64
		for _, x := range l.results {
			if x.Method == m {
				s += x.Seconds
			}
		}
		fmt.Fprintf(&b, " %.1f |", s)
	}
	b.WriteString("\n")
	return b.String()
}

// seriesTable writes, for task t, a section titled title with a table of
// the series that get gives each method (CMC or energy curves): one row
// per index from first, one column per method that has the series, cells
// "mean ± std" in the format cellFmt.
func (l layout) seriesTable(b *strings.Builder, t, index string, first int,
	title string, get func(results.Result) (mean, std []float64), cellFmt string) {
	var rows []results.Result
	for _, m := range l.methods {
		if x, ok := l.cell[[2]string{t, m}]; ok {
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
func paramSummary(r *results.Results) string {
	var b strings.Builder
	var methods []string
	for _, x := range r.Results {
		if !slices.Contains(methods, x.Method) {
			methods = append(methods, x.Method)
		}
	}
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
