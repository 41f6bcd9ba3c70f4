package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/experiment/results"
)

// zeroCodeShare is the share of all-zero sparse codes above which a
// result's warning suggests lambda_ratio.
const zeroCodeShare = 0.01

// Notes returns what the protocols had to adapt, once per task, as
// "task: note" (a class with too few items for train_per_class, say, named
// by its label), or "task / method: note" for a note that not every
// method of the task carries (the task a best: task chose for each
// method), in the order of the results.
func Notes(r *results.Results) []string {
	perTask := map[string]int{} // results per task
	carriers := map[[2]string][]string{}
	var order [][2]string // task and note, as first seen
	for _, x := range r.Results {
		perTask[x.Task]++
		for _, n := range x.Notes {
			k := [2]string{x.Task, n}
			if _, seen := carriers[k]; !seen {
				order = append(order, k)
			}
			if !slices.Contains(carriers[k], x.Method) {
				carriers[k] = append(carriers[k], x.Method)
			}
		}
	}
	out := make([]string, len(order))
	for i, k := range order {
		task, note, methods := k[0], k[1], carriers[k]
		if len(methods) < perTask[task] {
			task += " / " + strings.Join(methods, ", ")
		}
		out[i] = task + ": " + note
	}
	return out
}

// Warnings returns one line per result whose all-zero sparse codes exceed
// 1% of its test queries, naming the λ and σ in force and suggesting
// lambda_ratio, for the terminal and summary.md: such codes leave their
// predictions arbitrary.
func Warnings(r *results.Results) []string {
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
		var first map[string]float64
		if len(x.Params) > 0 {
			first = x.Params[0]
		}
		if _, relative := first["lambda_ratio"]; !relative {
			msg += ". λ is too large for this kernel's values, which move with σ, the ridge and d: try lambda_ratio (e.g. 0.1), which sets λ relative to each query's λ_max"
		} else {
			msg += ". Lower lambda_ratio"
		}
		out = append(out, msg+".")
	}
	return out
}

// noteLines returns the notes of summary.md's list: the warnings, fewer
// all-zero codes than warrant one, sparse codes that hit the solver's
// sweep cap, and the protocols' notes once per task.
func noteLines(r *results.Results) []string {
	var notes []string
	for _, w := range Warnings(r) {
		notes = append(notes, w)
	}
	for _, x := range r.Results {
		if n := sum(x.Degenerate); n > 0 && float64(n) <= zeroCodeShare*float64(sum(x.TestItems)) {
			notes = append(notes, fmt.Sprintf("%s / %s: %d test queries had all-zero sparse codes (arbitrary predictions).", x.Task, x.Method, n))
		}
		if n := sum(x.Unconverged); n > 0 {
			notes = append(notes, fmt.Sprintf("%s / %s: %d sparse codes hit the solver's sweep cap.", x.Task, x.Method, n))
		}
	}
	for _, n := range Notes(r) {
		notes = append(notes, n+".")
	}
	return notes
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}
