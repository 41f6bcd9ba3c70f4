package classify

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// CVTable is one choice that cross-validation made on a training set:
// every candidate's accuracy on each fold, the one chosen and the rule
// that chose it. Choose makes one for parameters (and ridge variants),
// Best for methods, Fused for the fusion of regions; a Train's CV
// collects those of its fit. Making one changes no choice.
type CVTable struct {
	// Choice says what was chosen: "parameters", "methods" or "fusion".
	Choice string `json:"choice"`
	// Scope says where in the fit the choice was made: "" for the fit
	// itself, `candidate "NAME"` inside a best method's chosen
	// candidate, "region K (WxH+X+Y)" inside a fused method's region.
	Scope string `json:"scope,omitempty"`
	// Items is the number of cross-validated training items, dealt into
	// the folds of each row: the training items that the folds hold out,
	// all of them but with folds within classes.
	Items int `json:"items"`
	// Candidates are the rows, in the order of the candidates (ties go to
	// the first).
	Candidates []CVRow `json:"candidates"`
	// Chosen is the index of the chosen row.
	Chosen int `json:"chosen"`
	// Rule is the rule that chose: "max-mean" (the highest mean of the
	// folds' accuracies: Choose), "max" (the highest accuracy over all
	// the items: Best without the one-standard-error rule, Fused), or
	// "one-se" (Best's one-standard-error rule, pickBest), and Why says
	// so in words. Threshold is, for one-se, the accuracy (%) that the
	// chosen row reached: the most accurate's minus its binomial
	// standard error.
	Rule      string  `json:"rule"`
	Why       string  `json:"why"`
	Threshold float64 `json:"threshold,omitempty"`
}

// Estimate returns the cross-validated accuracy (%) of what a fit chose,
// from the tables of its choices (Outcome.CV, CVLog.Tables): the chosen
// row's Mean in the last of tables that the fit made itself (Scope ""),
// which is its outermost choice (a best method's among methods, a fused
// method's among layouts and rules, otherwise the parameters'). ok is
// false when the fit made no choice.
func Estimate(tables []CVTable) (acc float64, ok bool) {
	for i := len(tables) - 1; i >= 0; i-- {
		if t := tables[i]; t.Scope == "" && t.Chosen >= 0 && t.Chosen < len(t.Candidates) {
			return t.Candidates[t.Chosen].Mean, true
		}
	}
	return 0, false
}

// CVRow is one candidate of a CVTable.
type CVRow struct {
	// Name says the candidate: its parameters ("sigma=0.5
	// lambda_ratio=0.1", with "ridge=…" among ridge variants), a best
	// method's candidate name, a fusion's layout and rule.
	Name string `json:"name"`
	// Folds is the accuracy (%) on each validation fold, in fold order.
	Folds []float64 `json:"folds"`
	// Mean is the accuracy (%) that the rule compares: the mean of Folds
	// (rule max-mean), or the accuracy over all the cross-validated items
	// (max, one-se), which weighs the folds by their sizes. SE is the
	// standard error of the mean of Folds, s/√k for the sample standard
	// deviation s of the k folds' accuracies (0 for one fold).
	Mean float64 `json:"mean"`
	SE   float64 `json:"se"`
}

// newCVRow returns the row of name with the folds' accuracies folds and
// mean, the accuracy the rule compares, and the standard error of the
// mean of folds.
func newCVRow(name string, folds []float64, mean float64) CVRow {
	r := CVRow{Name: name, Folds: folds, Mean: mean}
	k := float64(len(folds))
	if len(folds) > 1 {
		var m, ss float64
		for _, a := range folds {
			m += a / k
		}
		for _, a := range folds {
			ss += (a - m) * (a - m)
		}
		r.SE = math.Sqrt(ss / (k - 1) / k)
	}
	return r
}

// candidateName names parameter candidate p of Choose: its String when
// it has one, its value otherwise ("" for struct{}, a method without
// parameters), followed among several ridge variants by the variant's
// ridge.
func candidateName[P comparable](p P, ridge float64, variants int) string {
	var parts []string
	switch v := any(p).(type) {
	case fmt.Stringer:
		parts = append(parts, v.String())
	case struct{}:
	default:
		parts = append(parts, fmt.Sprint(v))
	}
	if variants > 1 {
		parts = append(parts, fmt.Sprintf("ridge=%g", ridge))
	}
	return strings.Join(parts, " ")
}

// CVLog collects the cross-validation tables of one fit (Train.CV), in
// the order the choices were made. It is safe for concurrent use; the
// zero value is ready, and a nil *CVLog records nothing.
type CVLog struct {
	mu     sync.Mutex
	tables []CVTable
}

// Tables returns the tables recorded, in order.
func (l *CVLog) Tables() []CVTable {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.tables)
}

// add records a copy of t, when both are not nil.
func (l *CVLog) add(t *CVTable) {
	if l == nil || t == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := *t
	c.Candidates = slices.Clone(t.Candidates)
	l.tables = append(l.tables, c)
}

// mark returns the number of tables recorded so far, from which scope
// counts.
func (l *CVLog) mark() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.tables)
}

// scope prefixes the Scope of the tables recorded since mark with s: the
// choices made inside a part of the fit (a best method's chosen
// candidate, a fused method's region).
func (l *CVLog) scope(since int, s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := since; i < len(l.tables); i++ {
		if l.tables[i].Scope == "" {
			l.tables[i].Scope = s
		} else {
			l.tables[i].Scope = s + ", " + l.tables[i].Scope
		}
	}
}
