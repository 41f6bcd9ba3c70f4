package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
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
func OpenSetTable(r *results.Results) string { return gridsMarkdown(openSetGrids(r)) }

// gridsMarkdown renders grids as Markdown tables separated by blank
// lines, each under "Task T:" when they are several.
func gridsMarkdown(gs []grid) string {
	var b strings.Builder
	for i, g := range gs {
		if i > 0 {
			b.WriteString("\n")
		}
		if len(gs) > 1 {
			fmt.Fprintf(&b, "Task %s:\n\n", g.task)
		}
		b.WriteString(g.markdown())
	}
	return b.String()
}

// openSetGrids are the tables of OpenSetTable, one per task.
func openSetGrids(r *results.Results) []grid {
	l := layoutOf(r.Results, results.KindOpenSet)
	var gs []grid
	for _, t := range l.tasks {
		var far float64
		for _, m := range l.methods {
			if x, ok := l.cell[[2]string{t, m}]; ok {
				far = x.FAR
				break
			}
		}
		g := grid{task: t, key: "open-set:" + t,
			header: []string{"method", "rejects by", "AUC", fmt.Sprintf("TAR at %g%% FAR", far), fmt.Sprintf("identified at %g%% FAR", far), "threshold", "accuracy, known items"},
			right:  []bool{false, false, true, true, true, true, true}}
		for _, m := range l.methods {
			x, ok := l.cell[[2]string{t, m}]
			if !ok {
				continue
			}
			var th float64
			for _, v := range x.Thresholds {
				th += v / float64(len(x.Thresholds))
			}
			g.rows = append(g.rows, []string{m, x.Rejection, statCell(x.AUC, "%.3f ± %.3f"), statCell(x.TAR, "%.1f ± %.1f"),
				statCell(x.Identification, "%.1f ± %.1f"), fmt.Sprintf("%.3f", th), fmt.Sprintf("%.2f ± %.1f", x.AccuracyMean, x.AccuracyStd)})
		}
		gs = append(gs, g)
	}
	return gs
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

// grid is a table of text cells, rendered as Markdown (markdown) for
// the terminal and summary.md and as HTML for report.html: a header,
// the columns aligned right (numbers), the rows and the rows of totals
// below them. task is the task it is of, for tables of one task, and key
// says what it holds to readers of report.html (htmlreport.Table.Key).
type grid struct {
	task, key    string
	header       []string
	right        []bool
	rows, totals [][]string
}

// markdown renders g as a Markdown table, "" for a grid without a
// header.
func (g grid) markdown() string {
	if len(g.header) == 0 {
		return ""
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			fmt.Fprintf(&b, " %s |", c)
		}
		b.WriteString("\n")
	}
	line(g.header)
	b.WriteString("|")
	for _, r := range g.right {
		if r {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, row := range g.rows {
		line(row)
	}
	for _, row := range g.totals {
		line(row)
	}
	return b.String()
}

// table renders the layout as a Markdown table (grid).
func (l layout) table(format func(results.Result) string) string {
	return l.grid(format).markdown()
}

// grid lays out format(result) per task and method ("–" where a method
// has no result) with a final row of the seconds each method ran, summed
// over tasks; an empty grid for no results.
func (l layout) grid(format func(results.Result) string) grid {
	if len(l.results) == 0 {
		return grid{}
	}
	g := grid{header: append([]string{"task"}, l.methods...), right: make([]bool, len(l.methods)+1)}
	for j := range l.methods {
		g.right[j+1] = true
	}
	for _, t := range l.tasks {
		row := []string{t}
		for _, m := range l.methods {
			if x, ok := l.cell[[2]string{t, m}]; ok {
				row = append(row, format(x))
			} else {
				row = append(row, "–")
			}
		}
		g.rows = append(g.rows, row)
	}
	total := []string{"run time (s)"}
	for _, m := range l.methods {
		var s float64
		for _, x := range l.results {
			if x.Method == m {
				s += x.Seconds
			}
		}
		total = append(total, fmt.Sprintf("%.1f", s))
	}
	g.totals = [][]string{total}
	return g
}

// series is a table of one task's series (CMC or energy curves): its
// title and the paragraph under it in summary.md, and its grid.
type series struct {
	title, text string
	grid        grid
}

// seriesGrids returns, for each task of l that has any, the table of the
// series that get gives each method: one row per index from first, one
// column per method that has the series, cells "mean ± std" in the
// format cellFmt; title and text head it, and its key is "kind:TASK".
func (l layout) seriesGrids(kind, index string, first int, title, text string,
	get func(results.Result) (mean, std []float64), cellFmt string) []series {
	var out []series
	for _, t := range l.tasks {
		var rows []results.Result
		for _, m := range l.methods {
			if x, ok := l.cell[[2]string{t, m}]; ok {
				if mean, _ := get(x); len(mean) > 0 {
					rows = append(rows, x)
				}
			}
		}
		if len(rows) == 0 {
			continue
		}
		g := grid{task: t, key: kind + ":" + t, header: []string{index}, right: []bool{true}}
		for _, x := range rows {
			g.header = append(g.header, x.Method)
			g.right = append(g.right, true)
		}
		n, _ := get(rows[0])
		for k := range n {
			row := []string{strconv.Itoa(k + first)}
			for _, x := range rows {
				if mean, std := get(x); k < len(mean) {
					row = append(row, fmt.Sprintf(cellFmt, mean[k], std[k]))
				} else {
					row = append(row, "–")
				}
			}
			g.rows = append(g.rows, row)
		}
		out = append(out, series{title: t + ": " + title, text: text, grid: g})
	}
	return out
}

// paramLines lists, per method, the parameter values used and how often
// cross-validation chose each (when it had a choice), "METHOD: VALUES".
func paramLines(r *results.Results) []string {
	var lines []string
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
		lines = append(lines, m+": "+strings.Join(parts, "; "))
	}
	return lines
}
