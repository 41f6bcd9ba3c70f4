package model

import (
	"context"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// partsRecord is how a model of several regions per image fuses them.
type partsRecord struct {
	// Rules are the candidate rules, Rule the one cross-validation chose
	// and Weights each region's weight under it (all 1 but for
	// weighted).
	Rules   []string  `json:"rules"`
	Rule    string    `json:"rule"`
	Weights []float64 `json:"weights"`
	// Regions are the regions of the first training image, "WxH+X+Y".
	Regions []string `json:"regions"`
	// Models are the regions' models, in region order; region k's arrays
	// are the files of prefix regionPrefix(k).
	Models []record `json:"models"`
}

// regionPrefix prefixes the files of region k's model.
func regionPrefix(k int) string { return fmt.Sprintf("region-%02d.", k) }

// Parts is how a model of several regions per image answers: it codes
// each region against the same region of the training images and fuses
// the class costs (classify.Fuse) by Rule with Weights.
type Parts struct {
	Rule    string
	Weights []float64
	// Regions are the regions of the first training image, "WxH+X+Y".
	Regions []string
	// Chosen are the parameters cross-validation chose for each region.
	Chosen []map[string]float64
}

// Parts returns how the model fuses several regions per image, nil for a
// model of one descriptor per answer.
func (m *Model) Parts() *Parts {
	if m == nil || m.parts == nil {
		return nil
	}
	p := m.rec.Parts
	out := &Parts{Rule: p.Rule, Weights: slices.Clone(p.Weights), Regions: slices.Clone(p.Regions)}
	for _, s := range m.parts {
		out.Chosen = append(out.Chosen, s.Chosen())
	}
	return out
}

// imagesOf returns the number of images of rows and their number of
// regions: each image's rows are consecutive, of one input and path
// (describe's order), and every image must have the same number of them,
// at least two.
func imagesOf(rows []store.Row) (images, regions int, err error) {
	first := func(i int) bool { return i == 0 || rows[i].Input != rows[i-1].Input || rows[i].Path != rows[i-1].Path }
	var starts []int
	for i := range rows {
		if first(i) {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return 0, 0, fmt.Errorf("model: no descriptors")
	}
	regions = len(rows) - starts[len(starts)-1]
	for k, s := range starts {
		end := len(rows)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		if end-s != regions {
			return 0, 0, fmt.Errorf("model: %s has %d regions, %s %d: fusing regions needs the same number for every image (a fixed --resize, or a layout of a fixed count such as whole+grid:3x3:16)", rows[s].Path, end-s, rows[starts[len(starts)-1]].Path, regions)
		}
		for i := s; i < end; i++ {
			if rows[i].Label != rows[s].Label {
				return 0, 0, fmt.Errorf("model: the regions of %s have labels %q and %q", rows[s].Path, rows[s].Label, rows[i].Label)
			}
		}
	}
	if regions < 2 {
		return 0, 0, fmt.Errorf("model: fusion needs several regions per image, the descriptors have one: describe with a layout of several (--regions whole+grid:3x3:16)")
	}
	return len(starts), regions, nil
}

// fitParts fits a model of several regions per image on the descriptors
// of out (set): it chooses the fusion rule among o.Fusion by
// cross-validation on the training images (classify.ChooseFusion, as
// covpipe run chooses it), then fits one model of method m per region
// (fitOne), each choosing its own parameters as a run's regions do.
func fitParts(ctx context.Context, out *store.Output, set *spd.Set, m classify.Method, o Options, folds int) (*Model, error) {
	rules, err := classify.ParseFusionRules(o.Fusion)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if !m.Spec().Costs {
		return nil, fmt.Errorf("model: method %s gives no class costs to fuse regions with (rsr, logE-SR, stein-svm and nn with the Stein or log-Euclidean metric do)", o.Method)
	}
	n, regions, err := imagesOf(out.Rows)
	if err != nil {
		return nil, err
	}
	firsts := make([]store.Row, n)
	for i := range firsts {
		firsts[i] = out.Rows[i*regions]
	}
	classes, labels, err := classesOf(firsts)
	if err != nil {
		return nil, err
	}
	data := &classify.Data{Labels: labels, Classes: classes, Ridge: out.Meta.Ridge.Eps, Workers: o.Workers}
	sets, err := classify.PartSets(set, regions)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	names := make([]string, regions)
	for r, rs := range sets {
		data.Parts = append(data.Parts, &classify.Data{Set: rs, Labels: labels, Classes: classes, Ridge: data.Ridge, Workers: o.Workers})
		names[r] = out.Rows[r].Region.String()
	}
	data.Set = data.Parts[0].Set
	f := classify.Fusing{Sets: [][]int{classify.Seq(0, regions)}, Layouts: []string{out.Meta.Regions}, Rules: rules, Regions: names}
	if f.Chooses() && folds < 2 {
		return nil, fmt.Errorf("model: choosing among fusion rules %v needs folds >= 2, not %d", o.Fusion, folds)
	}
	split := &classify.Split{Data: data, Train: classify.Seq(0, n), Workers: o.Workers, Seed: o.Seed, Folds: folds}
	choice, err := classify.ChooseFusion(ctx, m, split, f)
	if err != nil {
		return nil, fmt.Errorf("model: method %s: %w", o.Method, err)
	}
	top := &Model{rec: record{
		Version: version.String(), Method: o.Method, Folds: folds, Seed: o.Seed, Classes: classes, Labels: labels,
		Dim: set.Dim(), Trained: n, Extraction: extractionOf(out),
		Parts: &partsRecord{Rule: choice.Rule.String(), Weights: choice.Weights, Regions: names},
	}}
	for _, r := range rules {
		top.rec.Parts.Rules = append(top.rec.Parts.Rules, r.String())
	}
	for r, part := range data.Parts {
		sub, err := fitOne(ctx, m, part, o, folds)
		if err != nil {
			return nil, fmt.Errorf("region %d (%s): %w", r, names[r], err)
		}
		top.parts = append(top.parts, sub)
	}
	top.rec.Params = top.parts[0].rec.Params
	return top, nil
}

// predictParts fills in rows, one per image of set (its regions image by
// image), with the fused answers of the regions' models.
func (m *Model) predictParts(ctx context.Context, set *spd.Set, rows []Prediction, o PredictOptions) ([]Prediction, error) {
	regions, nc := len(m.parts), len(m.rec.Classes)
	sets, err := classify.PartSets(set, regions)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name(), err)
	}
	costs := make([][][]float64, regions)
	for r, sub := range m.parts {
		_, c, err := sub.answers(ctx, sets[r], o.Workers, true)
		if err != nil {
			return nil, fmt.Errorf("%s: region %d (%s): %w", m.name(), r, m.rec.Parts.Regions[r], err)
		}
		costs[r] = c
	}
	rule, _ := classify.FusionRules.Parse(m.rec.Parts.Rule)
	classes := classify.Seq(0, nc)
	fused, votes, per := make([]float64, nc), make([]int, nc), make([][]float64, regions)
	out := slices.Clone(rows)
	for q := range out {
		for r := range costs {
			per[r] = costs[r][q]
		}
		classify.Fuse(fused, votes, per, rule, m.rec.Parts.Weights)
		_, s := classify.RankCosts(classes, fused)
		m.fill(&out[q], s, o)
	}
	return out, nil
}

// checkParts checks the regions' records of a parts model read back
// against the model's.
func (r *record) checkParts() error {
	p := r.Parts
	if _, ok := classify.FusionRules.Parse(p.Rule); !ok {
		return fmt.Errorf("%s: fusion rule %q: want one of %v", recordFile, p.Rule, []string(classify.FusionRules))
	}
	if len(p.Models) < 2 || len(p.Weights) != len(p.Models) || len(p.Regions) != len(p.Models) {
		return fmt.Errorf("%s: %d region models, %d weights, %d regions: want as many, at least two", recordFile, len(p.Models), len(p.Weights), len(p.Regions))
	}
	if len(r.Labels) != r.Trained {
		return fmt.Errorf("%s has %d labels for %d training images", recordFile, len(r.Labels), r.Trained)
	}
	for k, s := range p.Models {
		if s.Method != r.Method || s.Dim != r.Dim || !slices.Equal(s.Classes, r.Classes) {
			return fmt.Errorf("%s: region %d's model is of %s on %d×%d descriptors of classes %q, the model's of %s on %d×%d of %q", recordFile, k, s.Method, s.Dim, s.Dim, s.Classes, r.Method, r.Dim, r.Dim, r.Classes)
		}
	}
	return nil
}
