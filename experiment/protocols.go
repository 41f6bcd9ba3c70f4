package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// A protocol is a task kind: how a task's results are made. Each protocol
// decodes its own keys of the task's mapping, checks them when the
// experiment loads, and lives in its own file (protocol_*.go); adding one
// is that file and a line in protocolTypes. Every protocol is exactly one
// of splitter, runner and combiner (checkProtocol, when the plan is
// built), and Run treats it as such.
type protocol interface {
	// offer says what the task gives the methods that run on it, which
	// the plan checks against every method's Spec when it is built; the
	// zero offer for a combiner, on which no method runs.
	offer() offer
}

// offer is what a task gives the methods that run on it (protocol.offer).
type offer struct {
	// dims lists the sizes d of the matrices the methods see, so that
	// parameters that depend on d (Theorem 1's σ) are checked at load.
	dims []int
	// dictionary: the task's splits have a Dictionary part.
	dictionary bool
	// vectors: the task's data stage can make per-item feature vectors
	// (an image dataset with whole-image regions).
	vectors bool
	// energy: the task traces the energy of the methods' dictionaries
	// (Spec.Energy) instead of classifying splits, so that no other
	// request of a Spec applies.
	energy bool
	// scores: the task thresholds the scores of the methods' answers
	// (Spec.Scores), which a method must give to run on it.
	scores bool
}

// unmet lists what a method with Spec s asks for that a task with offer
// o cannot give, for the error that names them; none when it can run.
func (o offer) unmet(s classify.Spec) []string {
	if o.energy {
		if s.Energy == nil {
			return []string{"a method that traces its dictionary's energy (method type codes)"}
		}
		return nil
	}
	var miss []string
	if s.Dictionary && !o.dictionary {
		miss = append(miss, "a split with items to learn a dictionary from and its size (a dictionary task)")
	}
	if !s.Vectors.IsZero() && !o.vectors {
		miss = append(miss, fmt.Sprintf("feature vectors of its items (%v), which only an image dataset with regions: whole gives", s.Vectors))
	}
	if o.scores && !s.Scores {
		miss = append(miss, "to score each answer, which open-set tasks threshold (it gives no scores)")
	}
	return miss
}

// splitter is a protocol whose tasks classify: it draws the train/test
// split of each repeat and every method classifies it, giving accuracy
// results.
type splitter interface {
	protocol
	// open prepares the task's data for a run.
	open(e *engine, task int) (*drawer, error)
}

// runner is a protocol that makes its results itself instead of
// classifying splits: the energy curves of Fig. 7 and the ROCs of open-set
// tasks, whose results are not accuracies, so that no combiner takes its
// tasks.
type runner interface {
	protocol
	run(e *engine, task int) ([]results.Result, error)
	// gives says what its results are, for errors: "energy curves".
	gives() string
}

// combiner is a protocol whose results are made from earlier tasks'
// accuracy results rather than by running the methods (average, best).
type combiner interface {
	protocol
	// sources names the earlier tasks it combines: its config's list,
	// from which a quick subset drops the tasks it leaves out.
	sources() *[]string
	// combine returns method m's result from the results done.
	combine(done []results.Result, m config.MethodSpec) (results.Result, error)
}

// combineAll returns c's result for each method, in order.
func combineAll(c combiner, done []results.Result, methods []config.MethodSpec) ([]results.Result, error) {
	var out []results.Result
	for _, m := range methods {
		res, err := c.combine(done, m)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// checkProtocol checks that p is exactly one of splitter, runner and
// combiner and, for a combiner, that the tasks it combines (in planned,
// by name) give accuracies.
func checkProtocol(p protocol, planned map[string]protocol) error {
	_, split := p.(splitter)
	_, run := p.(runner)
	c, comb := p.(combiner)
	n := 0
	for _, is := range []bool{split, run, comb} {
		if is {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("protocol %T is %d of splitter, runner and combiner, want exactly one", p, n)
	}
	if !comb {
		return nil
	}
	for _, name := range *c.sources() {
		if r, ok := planned[name].(runner); ok {
			return fmt.Errorf("task %q gives %s, not accuracies, so it cannot be combined", name, r.gives())
		}
	}
	return nil
}

// drawer draws the instances of a task: repeat r's split.
type drawer struct {
	classes int      // number of classes, for per-class metrics
	notes   []string // what the protocol had to adapt, for the report
	draw    func(r int) (*instance, error)
}

// instance is one repeat of a task: a split of a Data.
type instance struct {
	split *classify.Split
	notes []string
	// truth is the test items' labels, made once for the repeat's
	// methods, whose records share it (results.ItemScores.Truth).
	truth []int
}

// protocolType is an entry of the protocol table.
type protocolType struct {
	kind string
	// keys says what a task of this kind looks like, for errors.
	keys string
	// claims reports whether a task's mapping (by key) is of this kind;
	// the first entry that claims a task decodes it.
	claims func(map[string]*yaml.Node) bool
	decode func(t *config.TaskSpec, data *dataPlan, earlier map[string]bool) (protocol, error)
}

// protocolTypes is the protocol table, in the order tasks are matched.
var protocolTypes = []protocolType{
	{"synthetic", "synthetic: {classes, dim, samples, train, spread, variance}", has("synthetic"), newSynthetic},
	{"mosaic", "mosaic: {image, labels | build} with split: {train_per_class}", has("mosaic"), newMosaic},
	{"average", "average: [earlier tasks]", has("average"), newCombiner[averageTask]},
	{"best", "best: [earlier tasks]", has("best"), newCombiner[bestTask]},
	{"energy curve", "energy_curve: {sources, dim, points, samples, mix, atoms, iters}", has("energy_curve"), newEnergyCurve},
	{"open set", "open_set: {unknown, far} with train: and test: selectors or split: {train_per_class} over data.dataset", has("open_set"), newOpenSet},
	{"dictionary", "dictionary: {learn_per_class, probe_per_class, gallery_per_class, atoms} over data.dataset", has("dictionary"), newOverDataset[dictionaryTask]},
	{"selectors", "train: {key: [values]} and test: {key: [values]} over data.dataset", has("train", "test"), newOverDataset[selectorsTask]},
	{"camera split", "split: {by: KEY, train_per_class} over data.dataset", splitBy(true), newOverDataset[groupSplitTask]},
	{"random split", "split: {train_per_class} over data.dataset", splitBy(false), newOverDataset[randomSplitTask]},
}

// partsProtocols are the protocols whose items may be sets of region
// descriptors (data.parts); combinerKinds combine earlier tasks' results
// and hold no items.
var (
	partsProtocols = []string{"selectors", "camera split", "random split"}
	combinerKinds  = []string{"average", "best"}
)

// TaskKind is a task kind of experiment files as the reference of the
// format lists it (covpipe help-markdown, docs/experiments.md).
type TaskKind struct {
	// Kind names the protocol as results.json and errors name it.
	Kind string
	// Keys says what a task of the kind looks like.
	Keys string
	// Parts reports whether its items may be several regions per image
	// (data.parts), which is also where method best runs.
	Parts bool
	// Combines reports whether it combines earlier tasks' results, so
	// that no method runs on it.
	Combines bool
}

// TaskKinds lists the task kinds in the order a task is matched against
// them: the first kind whose keys the task has decodes it.
func TaskKinds() []TaskKind {
	out := make([]TaskKind, len(protocolTypes))
	for i, pt := range protocolTypes {
		out[i] = TaskKind{Kind: pt.kind, Keys: pt.keys, Parts: slices.Contains(partsProtocols, pt.kind), Combines: slices.Contains(combinerKinds, pt.kind)}
	}
	return out
}

// has claims mappings with any of the keys.
func has(keys ...string) func(map[string]*yaml.Node) bool {
	return func(m map[string]*yaml.Node) bool {
		for _, k := range keys {
			if m[k] != nil {
				return true
			}
		}
		return false
	}
}

// splitBy claims mappings with a split, with or without split.by.
func splitBy(by bool) func(map[string]*yaml.Node) bool {
	return func(m map[string]*yaml.Node) bool {
		s := m["split"]
		if s == nil {
			return false
		}
		found := false
		for i := 0; i+1 < len(s.Content); i += 2 {
			found = found || s.Content[i].Value == "by"
		}
		return found == by
	}
}

// newProtocol decodes a task by the first protocol that claims it.
func newProtocol(t *config.TaskSpec, data *dataPlan, earlier map[string]bool) (protocol, error) {
	n, keys := t.Node(), map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys[n.Content[i].Value] = n.Content[i+1]
	}
	for _, pt := range protocolTypes {
		if pt.claims(keys) {
			t.Kind = pt.kind
			if data != nil && data.fusion != nil && !slices.Contains(partsProtocols, pt.kind) && !slices.Contains(combinerKinds, pt.kind) {
				return nil, fmt.Errorf("data.parts applies to %s tasks; %s tasks classify one descriptor per item", strings.Join(partsProtocols, ", "), pt.kind)
			}
			return pt.decode(t, data, earlier)
		}
	}
	var kinds []string
	for _, pt := range protocolTypes {
		kinds = append(kinds, fmt.Sprintf("%s (%s)", pt.kind, pt.keys))
	}
	return nil, fmt.Errorf("no data source: give one of %s", strings.Join(kinds, "; "))
}

// decodeTask decodes the task's mapping strictly into cfg, a pointer to
// the protocol's config struct, and records it for results.json.
func decodeTask(t *config.TaskSpec, cfg any) error {
	if err := strictyaml.Decode(t.Node(), cfg, "a "+t.Kind+" task"); err != nil {
		return err
	}
	t.Settings = cfg
	return nil
}

// combinerTask is what the combiners share: the task's name. No method
// runs on them.
type combinerTask struct {
	Name string `yaml:"name" json:"name"`
}

func (combinerTask) offer() offer { return offer{} }

// newCombiner decodes a combiner's task into a new T, the config of its
// protocol, and checks that the tasks it combines are listed before it.
func newCombiner[T any, P interface {
	*T
	combiner
}](t *config.TaskSpec, _ *dataPlan, earlier map[string]bool) (protocol, error) {
	return decodeChecked[T](t, func(p P) error {
		if len(*p.sources()) == 0 {
			return fmt.Errorf("%s lists no tasks", t.Kind)
		}
		for _, n := range *p.sources() {
			if !earlier[n] {
				return fmt.Errorf("%s names %q, which is not a task listed before it", t.Kind, n)
			}
		}
		return nil
	})
}

// decodeChecked decodes the task into a new T, the config of its
// protocol, then checks it.
func decodeChecked[T any, P interface {
	*T
	protocol
}](t *config.TaskSpec, check func(P) error) (P, error) {
	p := P(new(T))
	if err := decodeTask(t, p); err != nil {
		return nil, err
	}
	return p, check(p)
}

// datasetTask is what the protocols over the data section's dataset
// share: the task's name, the descriptors' dimension and whether the
// data stage can make vectors (whole-image regions).
type datasetTask struct {
	Name    string `yaml:"name" json:"name"`
	dim     int
	vectors bool
}

func (p *datasetTask) offer() offer { return offer{dims: []int{p.dim}, vectors: p.vectors} }

func (p *datasetTask) base() *datasetTask { return p }

// datasetProtocol is the config of a protocol over data.dataset, which
// embeds a datasetTask: it checks itself once decoded and, in a run,
// prepares its draws from the dataset, which overDataset loads for it.
type datasetProtocol interface {
	protocol
	base() *datasetTask
	check() error
	drawer(e *engine, task int, ds dataset) (*drawer, error)
}

// overDataset is the splitter of a protocol over data.dataset.
type overDataset struct{ datasetProtocol }

func (p overDataset) open(e *engine, task int) (*drawer, error) {
	variants, err := e.images()
	if err != nil {
		return nil, err
	}
	d, err := p.drawer(e, task, newDataset(variants))
	if err != nil {
		return nil, err
	}
	d.notes = append(slices.Clone(e.imageNotes), d.notes...)
	return d, nil
}

// newOverDataset decodes a task over data.dataset into a new T, the config
// of its protocol, and checks it.
func newOverDataset[T any, P interface {
	*T
	datasetProtocol
}](t *config.TaskSpec, data *dataPlan, _ map[string]bool) (protocol, error) {
	p, err := decodeChecked[T](t, func(p P) error {
		if err := p.check(); err != nil {
			return err
		}
		if data == nil || data.dataset == "" {
			return errors.New("needs data.dataset")
		}
		base := p.base()
		base.dim = data.features.Dim()
		base.vectors = data.layout.Kind == covariance.LayoutWhole || data.fusion != nil
		return nil
	})
	return overDataset{p}, err
}

// dataset is what a task draws its splits from: one Data per ridge
// candidate (variants; data is the first) and the indices of all items.
type dataset struct {
	data     *classify.Data
	variants []*classify.Data
	all      []int
}

func newDataset(variants []*classify.Data) dataset {
	return dataset{data: variants[0], variants: variants, all: classify.Seq(0, variants[0].Set.Len())}
}

// split returns a split of the dataset whose parts are yet to be drawn.
func (ds dataset) split() *classify.Split {
	return &classify.Split{Data: ds.data, Variants: ds.variants}
}

// drawer returns the drawer of a task over the dataset.
func (ds dataset) drawer(notes []string, draw func(r int) (*instance, error)) *drawer {
	return &drawer{classes: ds.data.NumClasses(), notes: notes, draw: draw}
}

// Selector keeps items whose metadata key has one of the listed values.
type Selector map[string][]string

// SplitConfig is a random train/test split drawn in every repeat.
type SplitConfig struct {
	// TrainPerClass items of each class train; the rest test. A class
	// with that many items or fewer, which would leave nothing to test, is
	// an error naming it, unless ShortClasses says otherwise.
	TrainPerClass int `yaml:"train_per_class" json:"train_per_class"`
	// ShortClasses is what a random split does with a class of
	// TrainPerClass items or fewer: "" (the default) refuses it, naming the
	// class and its size; "train-all-but-one" trains it on all its items
	// but one (a class of one item is left out), with a note in the report.
	ShortClasses string `yaml:"short_classes,omitempty" json:"short_classes,omitempty"`
	// By names a metadata key (e.g. camera): each class trains on the items
	// of one randomly chosen value and tests on its other values; classes
	// with a single value are left out. TrainPerClass, if > 0, then caps
	// the training items per class.
	By string `yaml:"by,omitempty" json:"by,omitempty"`
}
