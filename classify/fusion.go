package classify

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/internal/enum"
)

// FusionRule turns the class costs of an item's parts into one cost per
// class, the lowest winning (see Fuse).
type FusionRule int

const (
	FuseSum FusionRule = iota
	FuseNormalized
	FuseVote
	FuseWeighted
)

var FusionRules = enum.Names[FusionRule]{FuseSum: "sum", FuseNormalized: "normalized", FuseVote: "vote", FuseWeighted: "weighted"}

func (r FusionRule) String() string { return FusionRules.String(r) }

// ParseFusionRules resolves the names of data.parts.fusion, [sum] when there
// are none.
func ParseFusionRules(names []string) ([]FusionRule, error) {
	if len(names) == 0 {
		return []FusionRule{FuseSum}, nil
	}
	var out []FusionRule
	for _, n := range names {
		r, ok := FusionRules.Parse(n)
		if !ok {
			return nil, fmt.Errorf("fusion rule %q: want one of %v", n, []string(FusionRules))
		}
		if slices.Contains(out, r) {
			return nil, fmt.Errorf("fusion rule %q listed twice", n)
		}
		out = append(out, r)
	}
	return out, nil
}

// Fuse writes into dst the fused cost of every class from costs[r], part
// r's costs of the classes (lower is better), under rule:
//
//	sum         Σ_r e_rc, the residuals added up;
//	normalized  Σ_r e_rc / m_r, m_r = min_c e_rc (the part's mean when
//	            that is 0), so that each part's best class costs 1 and
//	            no part dominates by its scale;
//	vote        R − v_c + n_c/(1 + max n), v_c the number of parts whose
//	            cheapest class is c and n_c the normalized sum, which
//	            breaks ties between classes of equal votes;
//	weighted    Σ_r w_r e_rc / m_r, w_r the part's weight.
//
// votes, of len(dst), is the vote rule's scratch.
func Fuse(dst []float64, votes []int, costs [][]float64, rule FusionRule, weights []float64) {
	clear(dst)
	if rule == FuseSum {
		for _, e := range costs {
			for c, v := range e {
				dst[c] += v
			}
		}
		return
	}
	for r, e := range costs {
		m := slices.Min(e)
		if !(m > 0) {
			m = 0
			for _, v := range e {
				m += v / float64(len(e))
			}
			if !(m > 0) {
				m = 1
			}
		}
		w := 1.0
		if rule == FuseWeighted {
			w = weights[r]
		}
		for c, v := range e {
			dst[c] += w * v / m
		}
	}
	if rule != FuseVote {
		return
	}
	top := slices.Max(dst)
	clear(votes)
	for _, e := range costs {
		votes[argmin(e)]++
	}
	for c := range dst {
		dst[c] = float64(len(costs)-votes[c]) + dst[c]/(1+top)
	}
}

// argmin returns the index of the least value of v, the first of equals.
func argmin(v []float64) int {
	k := 0
	for i, x := range v {
		if x < v[k] {
			k = i
		}
	}
	return k
}

// partSplit is split with its Data (and every ridge variant) replaced by
// their part r, over train and test, asking for class costs.
func partSplit(s *Split, r int, train, test []int) *Split {
	vs := s.AllVariants()
	sub := &Split{Data: vs[0].Parts[r], Train: train, Test: test, Workers: s.Workers, Seed: s.Seed, Folds: s.Folds, FoldsBy: s.FoldsBy, Costs: true}
	if len(s.Variants) > 0 {
		for _, v := range vs {
			sub.Variants = append(sub.Variants, v.Parts[r])
		}
	}
	return sub
}

// checkCosts checks that o, part r's outcome on n items, holds their
// class costs.
func checkCosts(o *Outcome, r, n int) error {
	if len(o.Costs) != n {
		return fmt.Errorf("region %d: %d class costs for %d test items", r, len(o.Costs), n)
	}
	return nil
}

// partCosts runs m on the parts of s's items over train and test and
// returns each part's outcome, in the order of parts. The classes of every
// part are those of train, so the cost columns agree. A part that is an
// earlier one's Data in every ridge variant (Data.SetParts) takes its
// outcome, the same run's. Each run's Pairs are views of those of s's
// training set, within[k] for parts[k] (Split.within).
func partCosts(ctx context.Context, m Method, s *Split, within []*Split, parts, train, test []int) ([]*Outcome, error) {
	outs := make([]*Outcome, len(parts))
next:
	for k, r := range parts {
		for q := range k {
			if samePart(s, parts[q], r) {
				outs[k] = outs[q]
				continue next
			}
		}
		ps := partSplit(s, r, train, test)
		ps.within = within[k]
		o, err := Run(ctx, m, ps)
		if err != nil {
			return nil, fmt.Errorf("region %d: %w", r, err)
		}
		if err := checkCosts(o, r, len(test)); err != nil {
			return nil, err
		}
		outs[k] = o
	}
	return outs, nil
}

// samePart reports whether parts q and r of s's items are one Data in
// every ridge variant.
func samePart(s *Split, q, r int) bool {
	for _, v := range s.AllVariants() {
		if v.Parts[q] != v.Parts[r] {
			return false
		}
	}
	return true
}

// Fusing is how the parts of items (Data.Parts) are fused: the candidate
// layouts, as sets of part indices with their names, and the rules to
// choose among.
type Fusing struct {
	Sets    [][]int
	Layouts []string
	Rules   []FusionRule
	// Regions names every part's region, "WxH+X+Y", for Outcome.Fusion.
	Regions []string
}

// Chooses reports whether the fusion is chosen by cross-validation: among
// several layouts or rules, or to weight the parts.
func (f Fusing) Chooses() bool {
	return len(f.Sets) > 1 || len(f.Rules) > 1 || slices.Contains(f.Rules, FuseWeighted)
}

// FusionChoice is a candidate layout (its index in Fusing.Sets), a
// fusion rule and the weights of the layout's parts.
type FusionChoice struct {
	Set     int
	Rule    FusionRule
	Weights []float64
}

// fuseParts fuses outs, the outcomes of the parts of f's layout of
// choice on the items of d, by the choice's rule and weights (Fuse). The
// outcome's Fusion records the layout, the rule, the weights and each
// part's accuracy alone on items whose labels d holds (NaN for none).
func fuseParts(outs []*Outcome, d *Data, items []int, f Fusing, choice FusionChoice) *Outcome {
	parts := f.Sets[choice.Set]
	var truth []int
	for _, i := range items {
		if l := d.Labels[i]; l >= 0 {
			truth = append(truth, l)
		}
	}
	classes := outs[0].CostClasses
	rec := &Fusion{Layout: f.Layouts[choice.Set], Rule: choice.Rule.String(), Weights: choice.Weights}
	for _, r := range parts {
		rec.Regions = append(rec.Regions, f.Regions[r])
	}
	out := &Outcome{
		Pred: make([]int, len(items)), Ranking: make([][]int, len(items)), Scores: make([]ItemScore, len(items)),
		Params: outs[0].Params, Lambdas: outs[0].Lambdas, Fusion: rec,
	}
	for _, o := range outs {
		out.Degenerate += o.Degenerate
		out.Unconverged += o.Unconverged
		acc := math.NaN()
		if len(truth) == len(items) {
			acc = Accuracy(o.Pred, truth)
		}
		rec.PartAccuracy = append(rec.PartAccuracy, acc)
		rec.PartParams = append(rec.PartParams, o.Params)
	}
	fused, votes := make([]float64, len(classes)), make([]int, len(classes))
	per := make([][]float64, len(parts))
	for q := range items {
		for k, o := range outs {
			per[k] = o.Costs[q]
		}
		Fuse(fused, votes, per, choice.Rule, choice.Weights)
		out.Ranking[q], out.Scores[q] = RankCosts(classes, fused)
		out.Pred[q] = out.Ranking[q][0]
	}
	return out
}

// ChooseFusion picks the layout of m on s among f's candidates, the rule
// among f's rules, and the weights of the layout's parts. Without a
// choice (Fusing.Chooses) it is the one layout and rule at equal weights.
// Otherwise it cross-validates on s.Folds stratified folds of the
// training set, never looking at the test items: every part of every
// layout codes each fold once; a part's accuracy over the folds is its
// weight (normalised to sum to its layout's number of parts); and the
// layout and rule of the best fused accuracy win, ties going to the first
// listed (layouts outermost).
func ChooseFusion(ctx context.Context, m Method, s *Split, f Fusing) (FusionChoice, error) {
	c, _, err := chooseFusion(ctx, m, s, f)
	return c, err
}

// chooseFusion is ChooseFusion, returning also the choice's CVTable (nil
// without a choice): a row per layout and rule, layouts outermost.
func chooseFusion(ctx context.Context, m Method, s *Split, f Fusing) (FusionChoice, *CVTable, error) {
	ones := func(n int) []float64 {
		w := make([]float64, n)
		for r := range w {
			w[r] = 1
		}
		return w
	}
	if !f.Chooses() {
		return FusionChoice{0, f.Rules[0], ones(len(f.Sets[0]))}, nil, nil
	}
	labels := s.Data.Labels
	all := Seq(0, len(s.Data.Parts))
	partCorrect := make([]int, len(all))
	type held struct {
		costs   [][][]float64 // per part, per validation item
		classes []int
		truth   []int
	}
	var folds []held
	vals, err := s.Data.ValidationFolds(s.Train, s.Folds, s.Seed, s.FoldsBy)
	if err != nil {
		return FusionChoice{}, nil, fmt.Errorf("fusion by cross-validation: %w", err)
	}
	// Each part's training set, whose Pairs its folds' are views of.
	within := make([]*Split, len(all))
	for k, r := range all {
		within[k] = partSplit(s, r, s.Train, nil)
	}
	for _, val := range vals {
		outs, err := partCosts(ctx, m, s, within, all, Without(s.Train, val), val)
		if err != nil {
			return FusionChoice{}, nil, fmt.Errorf("fusion by cross-validation: %w", err)
		}
		h := held{classes: outs[0].CostClasses, truth: Pick(labels, val)}
		for r, o := range outs {
			h.costs = append(h.costs, o.Costs)
			partCorrect[r] += Correct(o.Pred, h.truth)
		}
		folds = append(folds, h)
	}
	n := heldOut(vals)
	table := &CVTable{Choice: "fusion", Items: n, Rule: "max",
		Why: "the highest fused accuracy over the cross-validated items (ties to the first listed, layouts outermost)"}
	best, bestCorrect := FusionChoice{}, -1
	for k, set := range f.Sets {
		weights := make([]float64, len(set))
		for i, r := range set {
			weights[i] = float64(partCorrect[r])
		}
		normalizeWeights(weights)
		costs := make([][][][]float64, len(folds)) // per fold, the set's parts
		for j, h := range folds {
			for _, r := range set {
				costs[j] = append(costs[j], h.costs[r])
			}
		}
		for _, rule := range f.Rules {
			correct := 0
			accs := make([]float64, len(folds))
			for j, h := range folds {
				pred := fusedPred(costs[j], h.classes, rule, weights)
				correct += Correct(pred, h.truth)
				accs[j] = Accuracy(pred, h.truth)
			}
			if correct > bestCorrect {
				w := weights
				if rule != FuseWeighted {
					w = ones(len(set))
				}
				best, bestCorrect = FusionChoice{k, rule, w}, correct
				table.Chosen = len(table.Candidates)
			}
			name := "rule " + rule.String()
			if k < len(f.Layouts) && len(f.Sets) > 1 {
				name = "layout " + f.Layouts[k] + ", " + name
			}
			table.Candidates = append(table.Candidates, newCVRow(name, accs, 100*float64(correct)/float64(n)))
		}
	}
	return best, table, nil
}

// fusedPred returns the fused prediction of each item from its parts'
// costs (costs[r][q]) over classes.
func fusedPred(costs [][][]float64, classes []int, rule FusionRule, weights []float64) []int {
	n := len(costs[0])
	pred := make([]int, n)
	fused, votes := make([]float64, len(classes)), make([]int, len(classes))
	per := make([][]float64, len(costs))
	for q := range n {
		for r := range costs {
			per[r] = costs[r][q]
		}
		Fuse(fused, votes, per, rule, weights)
		pred[q] = classes[argmin(fused)]
	}
	return pred
}

// normalizeWeights scales w to sum to len(w), or sets every weight to 1
// when they sum to 0 (no part right on any fold).
func normalizeWeights(w []float64) {
	var s float64
	for _, v := range w {
		s += v
	}
	for r := range w {
		if s > 0 {
			w[r] *= float64(len(w)) / s
		} else {
			w[r] = 1
		}
	}
}
