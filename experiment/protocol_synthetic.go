package experiment

import (
	"fmt"
	"math"
	"time"

	"github.com/covpipe/covpipe/internal/plural"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
)

// syntheticTask draws synthetic SPD classes (synth.Options: the paper's
// Table 1 protocol): every repeat draws fresh samples around class means
// fixed by the run seed alone, so tasks that differ only in variance share
// them (the paper's "fixing the mean of each class").
type syntheticTask struct {
	Name      string        `yaml:"name" json:"name"`
	Synthetic synth.Options `yaml:"synthetic" json:"synthetic"`
}

func newSynthetic(t *config.TaskSpec, _ *dataPlan, _ map[string]bool) (protocol, error) {
	p := &syntheticTask{}
	if err := decodeTask(t, p); err != nil {
		return nil, err
	}
	return p, p.Synthetic.Validate()
}

func (p *syntheticTask) offer() offer { return offer{dims: []int{p.Synthetic.Dim}} }

func (p *syntheticTask) open(e *engine, ti int) (*drawer, error) {
	t0 := time.Now()
	model, err := synth.NewModel(p.Synthetic, e.cfg.Seed)
	if err != nil {
		return nil, err
	}
	e.addTime("data", t0)
	draw := func(r int) (*instance, error) {
		t0 := time.Now()
		defer e.addTime("data", t0)
		train, test, err := model.SampleContext(e.ctx, e.seed(ti, r))
		if err != nil {
			return nil, err
		}
		set, err := spd.NewSet(append(train.X, test.X...))
		if err != nil {
			return nil, err
		}
		_, inner := e.parallelism()
		data := classify.NewData(set, append(train.Labels, test.Labels...), inner)
		return &instance{split: &classify.Split{Data: data, Train: classify.Seq(0, len(train.X)), Test: classify.Seq(len(train.X), set.Len())}}, nil
	}
	return &drawer{classes: p.Synthetic.Classes, draw: draw}, nil
}

// sizes estimates what the task's samples make each repeat hold (the
// matrices, and the Stein divergences of the split when a method asks for
// them) and its classes make each method keep (a confusion matrix).
func (p *syntheticTask) sizes(index int, s sizing) []estimate {
	o := p.Synthetic
	perClass := o.Samples / o.Classes
	n := perClass * o.Classes
	train := int(math.Round(o.Train*float64(perClass))) * o.Classes
	repeat := matrices(n, o.Dim)
	if s.quantities {
		repeat += pairwise(train, n-train)
	}
	path, key := taskPath(index, "synthetic", "samples")
	cpath, ckey := taskPath(index, "synthetic", "classes")
	return []estimate{
		{key, path, fmt.Sprintf("%s of %d×%d (%d for training) in each of %s at once", plural.Of(n, "sample"), o.Dim, o.Dim, train, plural.Of(int(s.parallel), "repeat")), repeat * s.parallel},
		{ckey, cpath, fmt.Sprintf("%d classes make a confusion matrix for each of %s", o.Classes, plural.Of(int(s.methods), "method")), s.methods * 8 * float64(o.Classes) * float64(o.Classes)},
	}
}
