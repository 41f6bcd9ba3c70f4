package experiment

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/covpipe/covpipe/internal/plural"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
)

// newOpenSet decodes an open-set task over data.dataset, as every such
// protocol is decoded (newOverDataset), and returns it as the runner it
// is.
func newOpenSet(t *config.TaskSpec, data *dataPlan, earlier map[string]bool) (protocol, error) {
	p, err := newOverDataset[openSetTask](t, data, earlier)
	if err != nil {
		return nil, err
	}
	return p.(overDataset).datasetProtocol.(*openSetTask), nil
}

// OpenSetConfig holds classes out of training: open-set recognition, in
// which a recogniser must reject the test items of classes it was not
// trained on (Scheirer et al., "Toward open set recognition", TPAMI
// 2013), as Wright et al. reject invalid test images by the sparsity
// concentration index (TPAMI 2009, Sec. 2.4).
type OpenSetConfig struct {
	// Unknown is the fraction of the classes held out in each repeat, in
	// (0, 1): a random choice drawn from the repeat's seed. Their
	// training items are left out and their test items are unknowns.
	Unknown float64 `yaml:"unknown" json:"unknown"`
	// FAR is the false accept rate, in (0, 1), at which the accuracy on
	// the known items is reported (default 0.1).
	FAR float64 `yaml:"far,omitempty" json:"far"`
}

// DefaultFAR is the default OpenSetConfig.FAR.
const DefaultFAR = 0.1

// openSetTask trains on the known classes of a split of the data's
// dataset (fixed by train and test selectors, or drawn per repeat by
// split) and tests on all of its test items, known and unknown. Each
// method's answers are accepted when their confidence
// (classify.ItemScore.Confidence: the SCI for SRC methods, the score
// otherwise) reaches a threshold; sweeping it gives the ROC of known
// against unknown items (results of kind KindOpenSet).
type openSetTask struct {
	datasetTask `yaml:",inline"`
	Train       Selector      `yaml:"train,omitempty" json:"train,omitempty"`
	Test        Selector      `yaml:"test,omitempty" json:"test,omitempty"`
	Split       *SplitConfig  `yaml:"split,omitempty" json:"split,omitempty"`
	OpenSet     OpenSetConfig `yaml:"open_set" json:"open_set"`
	allButOne   bool          // split.short_classes, resolved
}

func (p *openSetTask) check() error {
	c := &p.OpenSet
	if !(c.Unknown > 0 && c.Unknown < 1) {
		return fmt.Errorf("open_set: unknown = %v, want the fraction of classes held out, in (0, 1)", c.Unknown)
	}
	if c.FAR == 0 {
		c.FAR = DefaultFAR
	}
	if !(c.FAR > 0 && c.FAR < 1) {
		return fmt.Errorf("open_set: far = %v, want a false accept rate in (0, 1) (default %g)", c.FAR, DefaultFAR)
	}
	selectors := p.Train != nil || p.Test != nil
	switch {
	case selectors && p.Split != nil:
		return errors.New("give train and test selectors or split, not both")
	case selectors && (p.Train == nil || p.Test == nil):
		return errors.New("give both train and test selectors")
	case !selectors && (p.Split == nil || p.Split.TrainPerClass < 1):
		return errors.New("give train and test selectors, or split: {train_per_class: N} with N >= 1")
	case p.Split != nil && p.Split.By != "":
		return errors.New("split: by is not an open-set split (give train_per_class)")
	}
	if p.Split != nil {
		var err error
		p.allButOne, err = p.Split.allButOne()
		return err
	}
	return nil
}

func (p *openSetTask) gives() string { return "open-set ROCs" }

// sizes estimates what the repeats keep: each method's ROC and measures.
func (p *openSetTask) sizes(index int, s sizing) []estimate {
	path, k := taskPath(index, "open_set")
	return []estimate{{k, path, fmt.Sprintf("%s keep the ROCs of %s", plural.Of(int(s.repeats), "repeat"), plural.Of(int(s.methods), "method")),
		s.repeats * s.methods * (8*float64(len(rocFAR())) + resultBytes)}}
}

func (p *openSetTask) offer() offer {
	o := p.datasetTask.offer()
	o.scores = true
	return o
}

// drawer draws the split that the known classes are then drawn from: the
// selectors' items, or train_per_class random training items per class.
func (p *openSetTask) drawer(e *engine, ti int, ds dataset) (*drawer, error) {
	if p.Split != nil {
		return randomDrawer(e, ti, ds, p.Split.TrainPerClass, p.allButOne, nil)
	}
	train, err := selectItems(ds.data, ds.all, p.Train)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	test, err := selectItems(ds.data, ds.all, p.Test)
	if err != nil {
		return nil, fmt.Errorf("test: %w", err)
	}
	if len(train) == 0 || len(test) == 0 {
		return nil, fmt.Errorf("the selectors match %d training and %d test items", len(train), len(test))
	}
	return ds.drawer(nil, func(int) (*instance, error) {
		s := ds.split()
		s.Train, s.Test = train, test
		return &instance{split: s}, nil
	}), nil
}

// openSetRun is what one repeat of one method measured.
type openSetRun struct {
	roc            []float64 // true accept rate (%) at each false accept rate of rocFAR
	auc            float64   // area under the ROC
	tar            float64   // true accept rate (%) at the task's FAR
	identification float64   // known items accepted and right (%) at the FAR
	closed         float64   // known items right without rejection (%)
	threshold      float64   // the confidence threshold at the FAR
	known, unknown int
	sci            bool // the method's confidence is the SCI
}

// rocFAR is the grid of false accept rates (%) of an open-set result's
// ROC: 0, 1, ..., 100.
func rocFAR() []float64 {
	g := make([]float64, 101)
	for i := range g {
		g[i] = float64(i)
	}
	return g
}

func (p *openSetTask) run(e *engine, ti int) ([]results.Result, error) {
	base, err := overDataset{p}.open(e, ti)
	if err != nil {
		return nil, err
	}
	n, methods := e.cfg.Repeats, e.plan.methods
	// Each repeat writes only its own slots, so no lock is needed, and
	// notes and seconds are gathered in repeat order afterwards.
	known := make([][]bool, n)         // per repeat, whether each test item's class was trained
	repeatNotes := make([][]string, n) // per repeat, the images left out and the classes held out
	dr := &drawer{classes: base.classes, draw: func(r int) (*instance, error) {
		in, err := base.draw(r)
		if err != nil {
			return nil, err
		}
		var note string
		known[r], note, err = p.holdOut(in.split, e.seed(ti, r))
		if err != nil {
			return nil, fmt.Errorf("repeat %d: %w", r, err)
		}
		repeatNotes[r] = append(slices.Clone(in.notes), note)
		return in, nil
	}}
	runs := make([][]openSetRun, len(methods))
	params := make([][]map[string]float64, len(methods))
	secs := make([][]float64, len(methods))
	trainItems := make([]int, n)
	for mi := range methods {
		runs[mi], params[mi], secs[mi] = make([]openSetRun, n), make([]map[string]float64, n), make([]float64, n)
	}
	err = e.classifyRepeats(ti, p.Name, dr, func(r, mi int, in *instance, out *classify.Outcome, sec float64) error {
		if len(out.Scores) != len(in.split.Test) {
			return fmt.Errorf("method %q, repeat %d: %d scores for %d test items", e.cfg.Methods[mi].Name, r, len(out.Scores), len(in.split.Test))
		}
		truth := classify.Pick(in.split.Data.Labels, in.split.Test)
		runs[mi][r] = openSetMeasure(out.Scores, truth, known[r], p.OpenSet.FAR)
		params[mi][r], trainItems[r], secs[mi][r] = out.Params, len(in.split.Train), sec
		return nil
	})
	if err != nil {
		return nil, err
	}
	notes := slices.Clone(base.notes)
	for _, rn := range repeatNotes {
		for _, n := range rn {
			if n != "" && !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
	}
	out := make([]results.Result, len(methods))
	for mi := range methods {
		out[mi] = openSetResult(p.Name, e.cfg.Methods[mi].Name, p.OpenSet.FAR, runs[mi])
		for _, sec := range secs[mi] {
			out[mi].Seconds += sec
		}
		out[mi].Params, out[mi].TrainItems = params[mi], trainItems
		out[mi].Notes = notes
	}
	e.timings["methods"] += sumSecs(out)
	return out, nil
}

// holdOut draws the classes of split held out of training from seed: the
// fraction OpenSet.Unknown of the classes of its items, at least one and
// leaving at least two to train on. It drops their training items from
// split and returns, for each test item, whether its class is trained
// (test items of classes without training items are unknowns too), and a
// note on the classes held out.
func (p *openSetTask) holdOut(split *classify.Split, seed uint64) ([]bool, string, error) {
	labels := split.Data.Labels
	classes := classify.SortedKeys(classify.ByClass(labels, append(slices.Clone(split.Train), split.Test...)))
	k := len(classes)
	u := min(max(1, int(math.Round(p.OpenSet.Unknown*float64(k)))), k-2)
	if u < 1 {
		return nil, "", fmt.Errorf("%d classes: an open-set split needs at least 3 (two known and one unknown)", k)
	}
	rng := rand.New(rand.NewPCG(seed, 0x4f50454e)) // "OPEN"
	unknown := map[int]bool{}
	for _, c := range rng.Perm(k)[:u] {
		unknown[classes[c]] = true
	}
	trained := map[int]bool{}
	train := split.Train[:0:0]
	for _, i := range split.Train {
		if !unknown[labels[i]] {
			train = append(train, i)
			trained[labels[i]] = true
		}
	}
	split.Train = train
	known := make([]bool, len(split.Test))
	nk := 0
	for t, i := range split.Test {
		known[t] = trained[labels[i]]
		if known[t] {
			nk++
		}
	}
	if nk == 0 || nk == len(known) {
		return nil, "", fmt.Errorf("%d known and %d unknown test items: the ROC needs both", nk, len(known)-nk)
	}
	return known, fmt.Sprintf("%d of %d classes held out of training in each repeat", u, k), nil
}
