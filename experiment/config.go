package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"go.yaml.in/yaml/v3"
)

// ErrConfig reports an invalid experiment configuration.
var ErrConfig = errors.New("experiment: invalid configuration")

// Config is an experiment: its data, its tasks, the methods compared on
// them, the number of random repeats and the seed that fixes every random
// choice.
type Config struct {
	// Name names the experiment in reports; default: the file name.
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Seed fixes every random choice of the run.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Repeats is the number of random repetitions (the paper: 100 for the
	// synthetic data, 20 for textures and re-identification).
	Repeats int `yaml:"repeats" json:"repeats"`
	// Workers bounds parallelism; 0 means all cores.
	Workers int `yaml:"workers,omitempty" json:"workers,omitempty"`
	// Folds is the number of stratified cross-validation folds inside each
	// training set used to choose among candidate parameters (lists of
	// sigma, lambda or ridge). Default 3.
	Folds int `yaml:"folds,omitempty" json:"folds,omitempty"`
	// CMC is the length of the cumulative matching characteristic to
	// report (ranks 1..CMC); 0 reports accuracy only.
	CMC int `yaml:"cmc,omitempty" json:"cmc,omitempty"`
	// Plot selects the report figure: "cmc" (one curve per method and
	// task), "bars" (accuracy per task with standard deviations, like the
	// paper's Fig. 4) or "" for none.
	Plot string `yaml:"plot,omitempty" json:"plot,omitempty"`
	// Data describes the images and descriptors of image tasks.
	Data    *DataConfig    `yaml:"data,omitempty" json:"data,omitempty"`
	Tasks   []TaskConfig   `yaml:"tasks" json:"tasks"`
	Methods []MethodConfig `yaml:"methods" json:"methods"`
}

// DataConfig says how images become descriptors.
type DataConfig struct {
	// Dataset is a datasets.Open spec relative to the data root, e.g.
	// "feret:feret-b-32" or "mars:mini-mars". Mosaic tasks need none.
	Dataset string `yaml:"dataset,omitempty" json:"dataset,omitempty"`
	// Features is a features.Parse spec, e.g. "face" or "I,Ix,Iy,Ixx,Iyy".
	Features string `yaml:"features" json:"features"`
	// GaborBorder is the border extension of Gabor planes: zero (MATLAB's
	// conv2(I, G, 'same'), the default) or symmetric. It may instead be
	// written in Features ("face; gabor-border=symmetric"), not both. For
	// features with Gabor planes, validation fills in the default, so that
	// results.json records the border in force.
	GaborBorder string `yaml:"gabor_border,omitempty" json:"gabor_border,omitempty"`
	// Resize is an optional "WxH" (columns × rows) applied on loading.
	Resize string `yaml:"resize,omitempty" json:"resize,omitempty"`
	// Filter is the resampling filter (linear, nearest, box, catmullrom,
	// lanczos3); default linear.
	Filter string `yaml:"filter,omitempty" json:"filter,omitempty"`
	// Regions is a covariance layout: whole (default), grid:RxC or
	// blocks:N:S.
	Regions string `yaml:"regions,omitempty" json:"regions,omitempty"`
	// Ridge is the regularisation strength ε (0: none); a list gives
	// candidates for parameter selection. Default 1e-4.
	Ridge Floats `yaml:"ridge,omitempty" json:"ridge,omitempty"`
	// RidgeKind is trace-ridge (C + ε·tr(C)/d·I, the default), diag-ridge
	// (C + ε·diag C, equivariant to feature units: use it when features of
	// very different scales are mixed, such as pixel coordinates with
	// intensities) or ridge (C + ε·I).
	RidgeKind string `yaml:"ridge_kind,omitempty" json:"ridge_kind,omitempty"`
}

// TaskConfig is one classification task: a table row of the report. It
// takes its data from exactly one of Synthetic, the experiment's Data
// (with Train/Test selectors or a random Split), a Mosaic, or Average.
type TaskConfig struct {
	Name string `yaml:"name" json:"name"`
	// Synthetic draws synthetic SPD data (the paper's Table 1 protocol).
	Synthetic *SyntheticConfig `yaml:"synthetic,omitempty" json:"synthetic,omitempty"`
	// Train and Test select items of the dataset by metadata, e.g.
	// {pose: [ba, bj, bk]}: a fixed split.
	Train Selector `yaml:"train,omitempty" json:"train,omitempty"`
	Test  Selector `yaml:"test,omitempty" json:"test,omitempty"`
	// Split draws a random split in every repeat.
	Split *SplitConfig `yaml:"split,omitempty" json:"split,omitempty"`
	// Mosaic classifies the regions of one texture mosaic.
	Mosaic *MosaicConfig `yaml:"mosaic,omitempty" json:"mosaic,omitempty"`
	// Average reports the mean of the named tasks' accuracies.
	Average []string `yaml:"average,omitempty" json:"average,omitempty"`
}

// Selector keeps items whose metadata key has one of the listed values.
type Selector map[string][]string

// SplitConfig is a random train/test split drawn in every repeat.
type SplitConfig struct {
	// TrainPerClass items of each class train; the rest test. A class with
	// that many items or fewer trains on all but one.
	TrainPerClass int `yaml:"train_per_class" json:"train_per_class"`
	// By names a metadata key (e.g. camera): each class trains on the items
	// of one randomly chosen value and tests on its other values; classes
	// with a single value are left out. TrainPerClass, if > 0, then caps
	// the training items per class.
	By string `yaml:"by,omitempty" json:"by,omitempty"`
}

// MosaicConfig is a texture mosaic whose regions are classified.
type MosaicConfig struct {
	// Image and Labels are the mosaic and its label map, relative to the
	// data root (USC-SIPI style: grey levels are labels).
	Image  string `yaml:"image,omitempty" json:"image,omitempty"`
	Labels string `yaml:"labels,omitempty" json:"labels,omitempty"`
	// Build composes a mosaic from the Brodatz album instead.
	Build *MosaicBuild `yaml:"build,omitempty" json:"build,omitempty"`
	// MinPurity is the smallest fraction of a region's pixels that must
	// carry its majority label for the region to be used (default 0.75).
	MinPurity float64 `yaml:"min_purity,omitempty" json:"min_purity,omitempty"`
}

// MosaicBuild configures datasets.BuildMosaic.
type MosaicBuild struct {
	// Album is the Brodatz folder relative to the data root (default
	// "brodatz").
	Album string `yaml:"album,omitempty" json:"album,omitempty"`
	// Textures is the number of textures (5, 10, 16 in the paper).
	Textures int `yaml:"textures" json:"textures"`
	// Layout is grid (default) or voronoi.
	Layout string `yaml:"layout,omitempty" json:"layout,omitempty"`
	// Seed fixes the textures and layout.
	Seed uint64 `yaml:"seed" json:"seed"`
}

// SyntheticConfig mirrors datasets.SyntheticOptions.
type SyntheticConfig struct {
	Classes  int     `yaml:"classes" json:"classes"`
	Dim      int     `yaml:"dim" json:"dim"`
	Samples  int     `yaml:"samples" json:"samples"`
	Train    float64 `yaml:"train" json:"train"`
	Spread   float64 `yaml:"spread" json:"spread"`
	Variance float64 `yaml:"variance" json:"variance"`
}

// MethodConfig selects a method and its parameters. Which parameters apply
// depends on the method type; setting one that does not apply is an error.
type MethodConfig struct {
	// Name labels the method in reports; default: Type.
	Name string `yaml:"name,omitempty" json:"name"`
	// Type is the method: rsr (the paper's Riemannian sparse
	// representation with the Stein kernel), logE-SR (log-Euclidean sparse
	// representation), nn-airm or nn-stein (nearest neighbour under the
	// AIRM or the Stein divergence).
	Type string `yaml:"type,omitempty" json:"type"`
	// Sigma is the Stein kernel parameter σ (Eqn. 5), checked against
	// Theorem 1 unless PseudoKernel; a list gives candidates.
	Sigma Floats `yaml:"sigma,omitempty" json:"sigma,omitempty"`
	// Lambda is the sparsity weight λ of Eqn. 6, on the paper's scale; a
	// list gives candidates.
	Lambda Floats `yaml:"lambda,omitempty" json:"lambda,omitempty"`
	// LambdaRatio is the sparsity weight relative to each query, in
	// (0, 1): λ(x) = ratio·λ_max(x), λ_max(x) = 2·max_j k(X, D_j) being the
	// smallest λ that codes x as all zeros (rsr.LambdaMax). Unlike λ it
	// carries across datasets, σ and ridges. A list gives candidates; give
	// Lambda or LambdaRatio, not both.
	LambdaRatio Floats `yaml:"lambda_ratio,omitempty" json:"lambda_ratio,omitempty"`
	// Tolerance is the relative KKT tolerance of the Lasso solver.
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	// Rule is the SRC decision rule: residual (Eqn. 8, default), sum or max.
	Rule string `yaml:"rule,omitempty" json:"rule,omitempty"`
	// NonNegative constrains sparse codes to v >= 0.
	NonNegative bool `yaml:"nonnegative,omitempty" json:"nonnegative,omitempty"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty"`
}

// Floats is a YAML scalar or list of numbers: `sigma: 1` or
// `sigma: [0.5, 1, 2]`. A list gives candidates for parameter selection.
type Floats []float64

// UnmarshalYAML accepts a number or a sequence of numbers.
func (f *Floats) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		var v float64
		if err := n.Decode(&v); err != nil {
			return err
		}
		*f = Floats{v}
		return nil
	case yaml.SequenceNode:
		var vs []float64
		if err := n.Decode(&vs); err != nil {
			return err
		}
		*f = vs
		return nil
	}
	return fmt.Errorf("line %d: want a number or a list of numbers", n.Line)
}

// Load reads and validates an experiment file. YAML is strict: an unknown
// key is an error naming the key, its line and the keys allowed there.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read experiment: %w", err)
	}
	cfg, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.Name == "" {
		base := path[strings.LastIndexAny(path, `/\`)+1:]
		cfg.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	return cfg, nil
}

// Parse decodes and validates an experiment from YAML.
func Parse(b []byte) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var cfg Config
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty file", ErrConfig)
		}
		return nil, fmt.Errorf("%w: %s", ErrConfig, explainYAML(err))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := cfg.validate(&root); err != nil {
		return nil, err
	}
	return &cfg, nil
}

var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

// explainYAML rewrites yaml.v3's unknown-field messages into ones that name
// the section and list the allowed keys.
func explainYAML(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = m
		sub := unknownField.FindStringSubmatch(m)
		if sub == nil {
			continue
		}
		if t, ok := configTypes[sub[3]]; ok {
			msgs[i] = fmt.Sprintf("line %s: unknown key %q in %s (allowed: %s)", sub[1], sub[2], t.section, strings.Join(yamlKeys(t.typ), ", "))
		}
	}
	return strings.Join(msgs, "; ")
}

var configTypes = map[string]struct {
	section string
	typ     reflect.Type
}{
	"experiment.Config":          {"the experiment", reflect.TypeFor[Config]()},
	"experiment.TaskConfig":      {"a task", reflect.TypeFor[TaskConfig]()},
	"experiment.SyntheticConfig": {"synthetic", reflect.TypeFor[SyntheticConfig]()},
	"experiment.DataConfig":      {"data", reflect.TypeFor[DataConfig]()},
	"experiment.SplitConfig":     {"split", reflect.TypeFor[SplitConfig]()},
	"experiment.MosaicConfig":    {"mosaic", reflect.TypeFor[MosaicConfig]()},
	"experiment.MosaicBuild":     {"mosaic build", reflect.TypeFor[MosaicBuild]()},
	"experiment.MethodConfig":    {"a method", reflect.TypeFor[MethodConfig]()},
}

func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// at returns "line N: " for the node reached by following mapping keys and
// sequence indices from the document root, or "" when it is absent.
func at(root *yaml.Node, path ...any) string {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return ""
			}
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
				}
			}
			if next == nil {
				return fmt.Sprintf("line %d: ", n.Line)
			}
			n = next
		case int:
			if n.Kind != yaml.SequenceNode || k >= len(n.Content) {
				return ""
			}
			n = n.Content[k]
		}
	}
	return fmt.Sprintf("line %d: ", n.Line)
}

func (c *Config) validate(root *yaml.Node) error {
	fail := func(path []any, format string, args ...any) error {
		return fmt.Errorf("%w: %s%s", ErrConfig, at(root, path...), fmt.Sprintf(format, args...))
	}
	if c.Repeats < 1 {
		return fail([]any{"repeats"}, "repeats = %d, want >= 1", c.Repeats)
	}
	if c.Workers < 0 {
		return fail([]any{"workers"}, "workers = %d, want >= 0 (0: all cores)", c.Workers)
	}
	if c.Folds == 0 {
		c.Folds = 3
	}
	if c.CMC < 0 {
		return fail([]any{"cmc"}, "cmc = %d, want >= 0", c.CMC)
	}
	switch c.Plot {
	case "", "cmc", "bars":
	default:
		return fail([]any{"plot"}, "plot %q, want cmc, bars or nothing", c.Plot)
	}
	if c.Plot == "cmc" && c.CMC == 0 {
		return fail([]any{"plot"}, "plot: cmc needs cmc: R (the number of ranks)")
	}
	if c.Data != nil {
		if err := c.Data.validate(); err != nil {
			return fail([]any{"data"}, "%v", err)
		}
	}
	if len(c.Tasks) == 0 {
		return fail(nil, "no tasks")
	}
	names := map[string]bool{}
	for i, t := range c.Tasks {
		p := []any{"tasks", i}
		if t.Name == "" {
			return fail(p, "task %d has no name", i+1)
		}
		if names[t.Name] {
			return fail(p, "duplicate task name %q", t.Name)
		}
		names[t.Name] = true
		if err := t.validate(c, names); err != nil {
			return fail(p, "task %q: %v", t.Name, err)
		}
	}
	if len(c.Methods) == 0 {
		return fail(nil, "no methods")
	}
	names = map[string]bool{}
	lists := c.Data != nil && len(c.Data.Ridge) > 1
	for i := range c.Methods {
		m := &c.Methods[i]
		if m.Type == "" {
			m.Type = m.Name
		}
		if m.Name == "" {
			m.Name = m.Type
		}
		p := []any{"methods", i}
		if m.Type == "" {
			return fail(p, "method %d has neither name nor type (types: %s)", i+1, strings.Join(MethodTypes(), ", "))
		}
		if names[m.Name] {
			return fail(p, "duplicate method name %q", m.Name)
		}
		names[m.Name] = true
		method, err := NewMethod(*m)
		if err != nil {
			return fail(p, "%v", err)
		}
		lists = lists || len(m.Sigma) > 1 || len(m.Lambda) > 1 || len(m.LambdaRatio) > 1
		if dc, ok := method.(dimChecker); ok {
			for _, t := range c.Tasks {
				if t.Synthetic == nil {
					continue
				}
				if err := dc.CheckDim(t.Synthetic.Dim); err != nil {
					// Only the Stein kernel's σ depends on d so far.
					return fail(append(p, "sigma"), "method %q on task %q: %v", m.Name, t.Name, err)
				}
			}
		}
	}
	if lists && c.Folds < 2 {
		return fail([]any{"folds"}, "folds = %d: parameter lists are chosen by cross-validation, which needs folds >= 2", c.Folds)
	}
	return nil
}

func (d *DataConfig) validate() error {
	if d.Features == "" {
		return errors.New("features is required (e.g. face, texture, reid or I,Ix,Iy)")
	}
	set, err := features.ParseWithGaborBorder(d.Features, d.GaborBorder)
	if err != nil {
		return err
	}
	if _, opts, _ := strings.Cut(d.Features, ";"); set.HasGabor() && !strings.Contains(opts, "gabor-border") {
		d.GaborBorder = set.GaborBorder().String()
	}
	if d.Resize != "" {
		if _, _, err := imageio.ParseSize(d.Resize); err != nil {
			return fmt.Errorf("resize %w", err)
		}
	}
	if _, err := imageio.ParseFilter(d.Filter); err != nil {
		return fmt.Errorf("filter %w", err)
	}
	if d.Regions != "" {
		if _, err := covariance.ParseLayout(d.Regions); err != nil {
			return err
		}
	}
	if len(d.Ridge) == 0 {
		d.Ridge = Floats{covariance.DefaultEps}
	}
	if d.RidgeKind == "" {
		d.RidgeKind = covariance.TraceRidge.String()
	}
	if k, err := covariance.ParseRegKind(d.RidgeKind); err != nil || k == covariance.None {
		return fmt.Errorf("ridge_kind %q: want trace-ridge, diag-ridge or ridge (ridge: 0 for none)", d.RidgeKind)
	}
	return checkFloats("ridge", d.Ridge, true, 0, true)
}

func (t TaskConfig) validate(c *Config, earlier map[string]bool) error {
	sources := 0
	for _, set := range []bool{t.Synthetic != nil, t.Train != nil || t.Test != nil, t.Mosaic != nil, t.Average != nil} {
		if set {
			sources++
		}
	}
	if sources == 0 && t.Split != nil {
		sources = 1 // a random split of the experiment's dataset
	}
	if sources != 1 {
		return errors.New("want exactly one data source: synthetic, train/test selectors, split (of the data's dataset), mosaic or average")
	}
	switch {
	case t.Synthetic != nil:
		if t.Split != nil {
			return errors.New("a synthetic task splits itself (synthetic.train); remove split")
		}
		return t.Synthetic.options().Validate()
	case t.Average != nil:
		if t.Split != nil {
			return errors.New("an average has no split")
		}
		for _, n := range t.Average {
			if !earlier[n] || n == t.Name {
				return fmt.Errorf("average names %q, which is not a task listed before it", n)
			}
		}
		return nil
	case t.Mosaic != nil:
		if c.Data == nil {
			return errors.New("a mosaic task needs the data section (features, regions, ridge)")
		}
		if t.Split == nil || t.Split.TrainPerClass < 1 {
			return errors.New("a mosaic task needs split: {train_per_class: k}")
		}
		m := t.Mosaic
		if (m.Build == nil) == (m.Image == "") {
			return errors.New("mosaic: give either image and labels, or build")
		}
		if m.Image != "" && m.Labels == "" {
			return errors.New("mosaic: image needs its labels map")
		}
		if m.Build != nil && m.Build.Textures < 2 {
			return fmt.Errorf("mosaic build: textures = %d, want >= 2", m.Build.Textures)
		}
		if m.MinPurity < 0 || m.MinPurity > 1 {
			return fmt.Errorf("mosaic: min_purity = %v, want in [0, 1]", m.MinPurity)
		}
		return nil
	}
	if c.Data == nil || c.Data.Dataset == "" {
		return errors.New("needs data.dataset")
	}
	if t.Train != nil || t.Test != nil {
		if t.Train == nil || t.Test == nil {
			return errors.New("give both train and test selectors")
		}
		if t.Split != nil {
			return errors.New("give either train/test selectors or split, not both")
		}
		return nil
	}
	if t.Split.TrainPerClass < 0 || (t.Split.TrainPerClass == 0 && t.Split.By == "") {
		return errors.New("split: train_per_class must be >= 1 (or give by: a metadata key)")
	}
	return nil
}

// checkFloats validates a parameter list: non-empty when required, every
// value finite and within (lo, ∞) or [lo, ∞).
func checkFloats(name string, vs Floats, required bool, lo float64, inclusive bool) error {
	if len(vs) == 0 {
		if required {
			return fmt.Errorf("%s is required", name)
		}
		return nil
	}
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || (!inclusive && v == lo) {
			op := ">"
			if inclusive {
				op = ">="
			}
			return fmt.Errorf("%s = %v, want finite and %s %v", name, v, op, lo)
		}
	}
	if slices.Contains(vs[:len(vs)-1], vs[len(vs)-1]) {
		return fmt.Errorf("%s lists %v twice", name, vs[len(vs)-1])
	}
	return nil
}
