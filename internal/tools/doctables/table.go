package main

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	runresults "github.com/covpipe/covpipe/experiment/results"
)

// Table is a Markdown table made from extracts and benchmark output. Each
// cell merges the table's Cell (defaults), its column's and its row's: a
// field that both the column and the row set must agree.
type Table struct {
	// Name is the marker's: <!-- table:NAME --> ... <!-- /table -->.
	Name string `yaml:"name"`
	// Corner heads the label column.
	Corner string `yaml:"corner"`
	// Missing is written where a run has no result for a cell's task and
	// method, or a benchmark file has no such benchmark or unit; empty
	// makes that an error.
	Missing string `yaml:"missing"`
	// Reproduce replaces the line under the table that says how to
	// reproduce it (default: the commands of the runs or benchmark files
	// the cells read).
	Reproduce string `yaml:"reproduce"`
	Cell      `yaml:",inline"`
	Columns   []Column `yaml:"columns"`
	Rows      []Row    `yaml:"rows"`
}

// Column is a table column: a header, the cell fields it sets and, for
// numbers typed in from elsewhere (the paper's), one text per row. Its
// cells are right-aligned unless Align is "left".
type Column struct {
	Header string   `yaml:"header"`
	Ref    []string `yaml:"ref"`
	Align  string   `yaml:"align"`
	Cell   `yaml:",inline"`
}

// Row is a table row: a label, the cell fields it sets and, in Cells,
// fields that override the merged cell of the column with that header.
type Row struct {
	Label string          `yaml:"label"`
	Cells map[string]Cell `yaml:"cells"`
	Cell  `yaml:",inline"`
}

// Cell says what a table cell shows. What it shows follows from the fields
// set (Value may say it explicitly):
//   - text: Text itself;
//   - accuracy (default): a run's mean ± std on Task for Method;
//   - cmc: the CMC at Rank (mean ± std);
//   - energy: J after Iter iterations (mean ± std);
//   - mean: the mean over the tasks MeanOf of the accuracy means;
//   - param: the values of Param that the repeats chose;
//   - part-param (with Param): the values of Param that a method fused
//     over regions chose region by region, each with the count of
//     regions (over all repeats) that chose it;
//   - best: the task a "best" task took Method's result from;
//   - seconds: the method's time summed over repeats (not for accuracy
//     tables: timings change from run to run);
//   - unconverged: the count of sparse codes that hit their solver's cap;
//   - degenerate: the count of sparse codes that were all zero;
//   - auc, tar, identified: an open-set result's area under the ROC, true
//     accept rate at the task's false accept rate, and known items
//     accepted and right at that rate (mean ± std);
//   - vs: Method's accuracy minus Against's on Task, repeat by repeat
//     (mean ± std of the differences);
//   - bench: benchmark Benchmark (+ "/" + Sub) of the file Bench, its Unit
//     summarised by Stat (range, median or min) over the -count runs.
type Cell struct {
	Value  string   `yaml:"value"`
	Text   string   `yaml:"text"`
	Run    string   `yaml:"run"`
	Task   string   `yaml:"task"`
	Method string   `yaml:"method"`
	Rank   int      `yaml:"rank"`
	Iter   *int     `yaml:"iter"`
	MeanOf []string `yaml:"mean_of"`
	Param  string   `yaml:"param"`
	// Against is the method that a vs cell subtracts.
	Against string `yaml:"against"`

	Bench     string `yaml:"bench"`
	Benchmark string `yaml:"benchmark"`
	Sub       string `yaml:"sub"`
	CPU       int    `yaml:"cpu"`
	Unit      string `yaml:"unit"`
	Stat      string `yaml:"stat"`

	// Decimals of means (default 2) and of standard deviations (default
	// 1); NoStd leaves the standard deviation out.
	Decimals    *int  `yaml:"decimals"`
	StdDecimals *int  `yaml:"std_decimals"`
	NoStd       *bool `yaml:"no_std"`
	// NoUnit writes a benchmark's number without its unit.
	NoUnit *bool `yaml:"no_unit"`
	Bold   *bool `yaml:"bold"`
}

var valueKinds = []string{"text", "accuracy", "cmc", "energy", "mean", "param", "part-param", "best", "chosen", "cv", "bias", "vs", "seconds", "unconverged", "degenerate", "auc", "tar", "identified", "bench"}

// kind returns what c shows.
func (c *Cell) kind() (string, error) {
	var set []string
	add := func(ok bool, k string) {
		if ok {
			set = append(set, k)
		}
	}
	add(c.Text != "", "text")
	add(c.Rank != 0, "cmc")
	add(c.Iter != nil, "energy")
	add(len(c.MeanOf) > 0, "mean")
	add(c.Param != "", "param")
	add(c.Bench != "", "bench")
	if len(set) > 1 {
		return "", fmt.Errorf("cell sets fields of %s at once", strings.Join(set, " and "))
	}
	inferred := "accuracy"
	if len(set) == 1 {
		inferred = set[0]
	}
	switch {
	case c.Value == "":
		return inferred, nil
	case !slices.Contains(valueKinds, c.Value):
		return "", fmt.Errorf("value %q: want one of %s", c.Value, strings.Join(valueKinds, ", "))
	case c.Value == "part-param" && inferred != "param":
		return "", errors.New("value part-param needs param")
	case len(set) == 1 && c.Value != inferred && (c.Value != "part-param" || inferred != "param"):
		return "", fmt.Errorf("value %s, but the cell sets the fields of %s", c.Value, inferred)
	}
	return c.Value, nil
}

// merge returns the cell that row and col set together, with the table's
// defaults where neither sets a field.
func merge(def, col, row Cell) (Cell, error) {
	var out Cell
	o := reflect.ValueOf(&out).Elem()
	d, c, r := reflect.ValueOf(def), reflect.ValueOf(col), reflect.ValueOf(row)
	for i := range o.NumField() {
		cv, rv := c.Field(i), r.Field(i)
		name := o.Type().Field(i).Tag.Get("yaml")
		switch {
		case !cv.IsZero() && !rv.IsZero():
			if !reflect.DeepEqual(cv.Interface(), rv.Interface()) {
				return out, fmt.Errorf("the column and the row both set %s", name)
			}
			o.Field(i).Set(cv)
		case !cv.IsZero():
			o.Field(i).Set(cv)
		case !rv.IsZero():
			o.Field(i).Set(rv)
		default:
			o.Field(i).Set(d.Field(i))
		}
	}
	return out, nil
}

// cell returns the cell at row r and column c.
func (t *Table) cell(r Row, c Column) (Cell, error) {
	cell, err := merge(t.Cell, c.Cell, r.Cell)
	if err != nil {
		return cell, err
	}
	over, ok := r.Cells[c.Header]
	if !ok {
		return cell, nil
	}
	if over.Text != "" {
		return over, nil // a text replaces the cell
	}
	o, v := reflect.ValueOf(&cell).Elem(), reflect.ValueOf(over)
	for i := range o.NumField() {
		if !v.Field(i).IsZero() {
			o.Field(i).Set(v.Field(i))
		}
	}
	return cell, nil
}

func (t *Table) check(m *Manifest) error {
	if len(t.Columns) == 0 || len(t.Rows) == 0 {
		return fmt.Errorf("needs columns and rows")
	}
	for _, c := range t.Columns {
		if c.Header == "" {
			return fmt.Errorf("a column has no header")
		}
		if c.Ref != nil && len(c.Ref) != len(t.Rows) {
			return fmt.Errorf("column %q: %d ref entries for %d rows", c.Header, len(c.Ref), len(t.Rows))
		}
		if c.Align != "" && c.Align != "left" && c.Align != "right" {
			return fmt.Errorf("column %q: align %q, want left or right", c.Header, c.Align)
		}
		if c.Ref != nil && !reflect.ValueOf(c.Cell).IsZero() {
			return fmt.Errorf("column %q: ref takes no cell fields", c.Header)
		}
	}
	for _, r := range t.Rows {
		for h := range r.Cells {
			if !slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Header == h && c.Ref == nil }) {
				return fmt.Errorf("row %q: cells: no column %q (of cells, not ref)", r.Label, h)
			}
		}
		for _, c := range t.Columns {
			if c.Ref != nil {
				continue
			}
			cell, err := t.cell(r, c)
			if err == nil {
				err = cell.check(m)
			}
			if err != nil {
				return fmt.Errorf("row %q, column %q: %w", r.Label, c.Header, err)
			}
		}
	}
	return nil
}

func (c *Cell) check(m *Manifest) error {
	k, err := c.kind()
	if err != nil {
		return err
	}
	switch k {
	case "text":
		return nil
	case "bench":
		if c.Benchmark == "" {
			return fmt.Errorf("bench %s: no benchmark named", c.Bench)
		}
		if c.Stat != "" && !slices.Contains([]string{"range", "median", "min"}, c.Stat) {
			return fmt.Errorf("stat %q: want range, median or min", c.Stat)
		}
		return nil
	}
	if c.Run == "" {
		return fmt.Errorf("no run")
	}
	if _, err := m.Run(c.Run); err != nil {
		return err
	}
	if k != "mean" && (c.Task == "" || c.Method == "") {
		return fmt.Errorf("%s of run %s needs a task and a method", k, c.Run)
	}
	if k == "mean" && c.Method == "" {
		return fmt.Errorf("mean of run %s needs a method", c.Run)
	}
	if k == "mean" && c.Task != "" {
		return fmt.Errorf("mean of run %s: give the tasks in mean_of, not task", c.Run)
	}
	return nil
}

// sources gathers what a table reads: run ids, and the commands behind
// the benchmarks (or the files, where they name no command).
type sources struct {
	runs, benches []string
}

func (s *sources) add(c Cell) {
	if c.Run != "" && !slices.Contains(s.runs, c.Run) {
		s.runs = append(s.runs, c.Run)
	}
}

func (s *sources) addBench(cmd string) {
	if !slices.Contains(s.benches, cmd) {
		s.benches = append(s.benches, cmd)
	}
}

// Render returns the table's Markdown: the table, a blank line and the
// line that says how to reproduce it.
func (t *Table) Render(st *store) (string, error) {
	var b strings.Builder
	b.WriteString("| " + escapeCell(t.Corner))
	for _, c := range t.Columns {
		b.WriteString(" | " + escapeCell(c.Header))
	}
	b.WriteString(" |\n|---")
	for _, c := range t.Columns {
		if c.Align == "left" {
			b.WriteString("|---")
		} else {
			b.WriteString("|---:")
		}
	}
	b.WriteString("|\n")
	var src sources
	for i, r := range t.Rows {
		b.WriteString("| " + escapeCell(r.Label))
		for _, c := range t.Columns {
			text := ""
			if c.Ref != nil {
				text = c.Ref[i]
			} else {
				cell, err := t.cell(r, c)
				if err != nil {
					return "", fmt.Errorf("row %q, column %q: %w", r.Label, c.Header, err)
				}
				src.add(cell)
				text, err = st.cellText(cell, t.Missing, &src)
				if err != nil {
					return "", fmt.Errorf("row %q, column %q: %w", r.Label, c.Header, err)
				}
			}
			b.WriteString(" | " + text)
		}
		b.WriteString(" |\n")
	}
	line := t.Reproduce
	if line == "" {
		var err error
		if line, err = st.reproduce(src); err != nil {
			return "", err
		}
	}
	if line != "" {
		b.WriteString("\n" + line + "\n")
	}
	return b.String(), nil
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// cellText renders one cell, adding the benchmark command behind it to
// src (when not nil).
func (st *store) cellText(c Cell, missing string, src *sources) (string, error) {
	text, err := st.cellValue(c, missing, src)
	if err != nil {
		return "", err
	}
	if c.Bold != nil && *c.Bold && text != "" && text != missing {
		text = "**" + text + "**"
	}
	return escapeCell(text), nil
}

func (st *store) cellValue(c Cell, missing string, src *sources) (string, error) {
	k, err := c.kind()
	if err != nil {
		return "", err
	}
	switch k {
	case "text":
		return c.Text, nil
	case "bench":
		text, cmd, err := st.benchText(c)
		if errors.Is(err, errNoBench) && missing != "" {
			return missing, nil
		}
		if err == nil && src != nil {
			if cmd == "" {
				cmd = "docs/runs/bench/" + c.Bench + ".txt"
			}
			src.addBench(cmd)
		}
		return text, err
	}
	e, err := st.extract(c.Run)
	if err != nil {
		return "", err
	}
	if k == "mean" {
		var s float64
		for _, task := range c.MeanOf {
			r := e.Result(task, c.Method)
			if r == nil || r.Mean == nil {
				if missing != "" {
					return missing, nil
				}
				return "", fmt.Errorf("run %s has no accuracy of %s on %s", c.Run, c.Method, task)
			}
			s += *r.Mean
		}
		return fixed(s/float64(len(c.MeanOf)), intOr(c.Decimals, 2)), nil
	}
	r := e.Result(c.Task, c.Method)
	if r == nil {
		if missing != "" {
			return missing, nil
		}
		return "", fmt.Errorf("run %s has no result of %s on %s", c.Run, c.Method, c.Task)
	}
	switch k {
	case "accuracy":
		if r.Mean == nil {
			return "", fmt.Errorf("run %s: %s on %s has no accuracy (an energy curve?)", c.Run, c.Method, c.Task)
		}
		return meanStd(c, *r.Mean, r.Std, len(r.Runs)), nil
	case "cmc":
		if c.Rank < 1 || c.Rank > len(r.CMC) {
			return "", fmt.Errorf("run %s: %s on %s has no CMC at rank %d (ranks 1 to %d)", c.Run, c.Method, c.Task, c.Rank, len(r.CMC))
		}
		var std *float64
		if c.Rank <= len(r.CMCStd) {
			std = &r.CMCStd[c.Rank-1]
		}
		return meanStd(c, r.CMC[c.Rank-1], std, len(r.Runs)), nil
	case "energy":
		if *c.Iter < 0 || *c.Iter >= len(r.Energy) {
			return "", fmt.Errorf("run %s: %s on %s has no energy after %d iterations (0 to %d)", c.Run, c.Method, c.Task, *c.Iter, len(r.Energy)-1)
		}
		var std *float64
		if *c.Iter < len(r.EnergyStd) {
			std = &r.EnergyStd[*c.Iter]
		}
		return meanStd(c, r.Energy[*c.Iter], std, e.Repeats), nil
	case "param", "part-param":
		counts, what := r.Params[c.Param], "parameter"
		if k == "part-param" {
			counts, what = r.PartParams[c.Param], "region's parameter"
		}
		if len(counts) == 0 {
			return "", fmt.Errorf("run %s: %s on %s records no %s %q", c.Run, c.Method, c.Task, what, c.Param)
		}
		var parts []string
		for _, p := range counts {
			s := strconv.FormatFloat(p.Value, 'g', -1, 64)
			if len(counts) > 1 {
				s += fmt.Sprintf(" (%d×)", p.Repeats)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", "), nil
	case "best":
		if r.BestOf == "" {
			return "", fmt.Errorf("run %s: %s on %s is not a best-of result", c.Run, c.Method, c.Task)
		}
		return r.BestOf, nil
	case "chosen":
		if len(r.Chosen) == 0 {
			return "", fmt.Errorf("run %s: %s on %s chose no method (not a best method)", c.Run, c.Method, c.Task)
		}
		var parts []string
		for _, ch := range r.Chosen {
			parts = append(parts, fmt.Sprintf("%s %d", ch.Method, ch.Repeats))
		}
		return strings.Join(parts, ", "), nil
	case "cv", "bias":
		if len(r.CVEstimate) == 0 || len(r.CVEstimate) != len(r.Runs) {
			return "", fmt.Errorf("run %s: %s on %s records %d cross-validated estimates for %d repeats (a method that chooses nothing?)", c.Run, c.Method, c.Task, len(r.CVEstimate), len(r.Runs))
		}
		xs := slices.Clone(r.CVEstimate)
		if k == "bias" {
			// What the test shows beyond the estimate: negative when
			// cross-validation promised more than the test gave.
			for i := range xs {
				xs[i] = r.Runs[i] - xs[i]
			}
		}
		mean, std := runresults.MeanStd(xs)
		return meanStd(c, mean, &std, len(xs)), nil
	case "vs":
		o := e.Result(c.Task, c.Against)
		if o == nil || len(o.Runs) != len(r.Runs) || len(r.Runs) == 0 {
			return "", fmt.Errorf("run %s: no result of %q on %s with %s's %d repeats to compare %s with (value vs needs against: METHOD)", c.Run, c.Against, c.Task, c.Method, len(r.Runs), c.Method)
		}
		xs := make([]float64, len(r.Runs))
		for i := range xs {
			xs[i] = r.Runs[i] - o.Runs[i]
		}
		mean, std := runresults.MeanStd(xs)
		return meanStd(c, mean, &std, len(xs)), nil
	case "seconds":
		return fixed(r.Seconds, intOr(c.Decimals, 1)) + " s", nil
	case "unconverged":
		return strconv.Itoa(r.Unconverged), nil
	case "degenerate":
		return strconv.Itoa(r.Degenerate), nil
	case "auc", "tar", "identified":
		st := map[string]*Stat{"auc": r.AUC, "tar": r.TAR, "identified": r.Identified}[k]
		if st == nil {
			return "", fmt.Errorf("run %s: %s on %s has no %s (not an open-set result)", c.Run, c.Method, c.Task, k)
		}
		return meanStd(c, st.Mean, &st.Std, len(r.Runs)), nil
	}
	return "", fmt.Errorf("unknown value %q", k)
}

// meanStd writes mean ± std, without the std for one repeat or when the
// cell says so.
func meanStd(c Cell, mean float64, std *float64, repeats int) string {
	s := fixed(mean, intOr(c.Decimals, 2))
	if std == nil || repeats == 1 || (c.NoStd != nil && *c.NoStd) {
		return s
	}
	return s + " ± " + fixed(*std, intOr(c.StdDecimals, 1))
}

func fixed(x float64, decimals int) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		s = s[1:] // no "-0.00"
	}
	return s
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}
