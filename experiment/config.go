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

	"go.yaml.in/yaml/v3"
)

// ErrConfig reports an invalid experiment configuration.
var ErrConfig = errors.New("experiment: invalid configuration")

// Config is an experiment: its data tasks, the methods compared on them,
// the number of random repeats and the seed that fixes every random choice.
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
	Workers int            `yaml:"workers,omitempty" json:"workers,omitempty"`
	Tasks   []TaskConfig   `yaml:"tasks" json:"tasks"`
	Methods []MethodConfig `yaml:"methods" json:"methods"`
}

// TaskConfig is one classification task: a table row of the report.
type TaskConfig struct {
	Name string `yaml:"name" json:"name"`
	// Synthetic draws fresh synthetic SPD data in every repeat (the
	// paper's Table 1 protocol).
	Synthetic *SyntheticConfig `yaml:"synthetic,omitempty" json:"synthetic,omitempty"`
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
	// representation with the Stein kernel).
	Type string `yaml:"type,omitempty" json:"type"`
	// Sigma is the Stein kernel parameter σ (Eqn. 4), checked against
	// Theorem 1 unless PseudoKernel.
	Sigma Floats `yaml:"sigma,omitempty" json:"sigma,omitempty"`
	// Lambda is the sparsity weight λ of Eqn. 6, on the paper's scale.
	Lambda Floats `yaml:"lambda,omitempty" json:"lambda,omitempty"`
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
		if t.Synthetic == nil {
			return fail(p, "task %q: no data (want a synthetic section)", t.Name)
		}
		if err := t.Synthetic.options().Validate(); err != nil {
			return fail(append(p, "synthetic"), "task %q: %v", t.Name, err)
		}
	}
	if len(c.Methods) == 0 {
		return fail(nil, "no methods")
	}
	names = map[string]bool{}
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
