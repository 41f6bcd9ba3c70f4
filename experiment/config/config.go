package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// ErrConfig reports an invalid experiment configuration: a file that
// Decode refuses, or settings that package experiment refuses when it
// plans the experiment.
var ErrConfig = errors.New("experiment: invalid configuration")

// Config is an experiment file: its data, its tasks, the methods compared
// on them, the number of random repeats and the seed that fixes every
// random choice. Tasks and methods are decoded by their own types (the
// protocols of package experiment, and package method) when the
// experiment is planned.
type Config struct {
	// Name names the experiment in reports; default: the file name.
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Seed fixes every random choice of the run.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Repeats is the number of random repetitions (the paper: 100 for the
	// synthetic data, 20 for textures and re-identification).
	Repeats int `yaml:"repeats" json:"repeats"`
	// Workers bounds parallelism; 0 means all cores. It is the one place
	// the worker count is set (covpipe run --workers writes it).
	Workers int `yaml:"workers,omitempty" json:"workers,omitempty"`
	// Folds is the number of stratified cross-validation folds inside each
	// training set used to choose among candidate parameters (lists of
	// sigma, lambda or ridge): 3 when the file leaves it out, which is not
	// the same as folds: 0, an error.
	Folds int `yaml:"folds,omitempty" json:"folds,omitempty"`
	// FoldsBy, when set, makes the folds group folds of this item
	// metadata key instead of stratified ones: each fold holds out whole
	// groups, e.g. one of FERET's training poses (pose), so that a choice
	// is judged on groups its fit has not seen, as the test items are
	// (classify.Data.ValidationFolds). With fewer groups than folds there
	// is one fold per group.
	FoldsBy string `yaml:"folds_by,omitempty" json:"folds_by,omitempty"`
	// FoldsWithin, when set, makes the folds group folds of this item
	// metadata key within each class: each class's groups (a person's
	// tracklets) are held out in turn while its other groups stay in
	// training, so that near copies (frames of one tracklet) never sit
	// on both sides of a fold (classify.ClassGroupFolds). It excludes
	// FoldsBy.
	FoldsWithin string `yaml:"folds_within,omitempty" json:"folds_within,omitempty"`
	// CMC is the length of the cumulative matching characteristic to
	// report (ranks 1..CMC); 0 reports accuracy only.
	CMC int `yaml:"cmc,omitempty" json:"cmc,omitempty"`
	// Plot selects the report figure: cmc, bars, energy, roc or none (see
	// Plot); cmc needs CMC > 0.
	Plot Plot `yaml:"plot,omitempty" json:"plot,omitempty"`
	// Quick is the documented subset that `covpipe run --quick` runs
	// (experiment.Plan.Quick): fewer repeats and tasks.
	Quick *QuickConfig `yaml:"quick,omitempty" json:"quick,omitempty"`
	// Data describes the images and descriptors of image tasks.
	Data    *DataConfig  `yaml:"data,omitempty" json:"data,omitempty"`
	Tasks   []TaskSpec   `yaml:"tasks" json:"tasks"`
	Methods []MethodSpec `yaml:"methods" json:"methods"`
}

// QuickConfig is a quick subset of an experiment.
type QuickConfig struct {
	// Repeats replaces the experiment's repeats (0: keep them).
	Repeats int `yaml:"repeats,omitempty" json:"repeats,omitempty"`
	// Tasks lists the tasks to keep (empty: all). Averages and bests keep
	// the kept tasks they name.
	Tasks []string `yaml:"tasks,omitempty" json:"tasks,omitempty"`
	// Methods lists the methods to keep, by name (empty: all): a table's
	// slow column (TSC on FERET) can be left out of the quick run.
	Methods []string `yaml:"methods,omitempty" json:"methods,omitempty"`
}

// TaskSpec is one task of an experiment file: a table row of the report.
// Its protocol (task kind) is recognised from its keys and decodes the
// rest when package experiment plans the experiment (its protocol table),
// which fills in Kind and Settings.
type TaskSpec struct {
	Name string
	// Kind names the task's protocol.
	Kind string
	// Settings is the task as its protocol decoded it (the protocol's
	// config), which results.json records; nil until then.
	Settings any
	node     *yaml.Node
	raw      map[string]any
	index    int
}

// Node returns the task's mapping as the file gives it, for its protocol
// to decode; nil for a task read back from results.json.
func (t *TaskSpec) Node() *yaml.Node { return t.node }

// Index returns the task's position in the file (Decode numbers the
// tasks), which names its settings in errors (tasks[3].synthetic.samples)
// once a quick subset dropped others.
func (t *TaskSpec) Index() int { return t.index }

// UnmarshalYAML keeps the task's mapping for its protocol to decode.
func (t *TaskSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a task is a mapping (name: ..., and its data source)", n.Line)
	}
	t.node = n
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			t.Name = n.Content[i+1].Value
		}
	}
	return nil
}

// MarshalJSON records the task as its protocol decoded it (Settings), or
// as it was read back.
func (t TaskSpec) MarshalJSON() ([]byte, error) {
	if t.Settings != nil {
		return json.Marshal(t.Settings)
	}
	return json.Marshal(t.raw)
}

// UnmarshalJSON reads a recorded task back (for reports; not validated).
func (t *TaskSpec) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &t.raw); err != nil {
		return err
	}
	t.Name, _ = t.raw["name"].(string)
	return nil
}

// MethodSpec is one method of an experiment file: its report name, its
// type (package method) and the type's own parameters.
type MethodSpec struct {
	// Name labels the method in reports; default: Type.
	Name string
	// Type is the method type; default: Name.
	Type string
	// Params is the method's decoded parameters, recorded in results.json
	// (filled in when package experiment plans the experiment).
	Params any
	params *yaml.Node // the mapping without name and type
	raw    map[string]any
}

// ParamsNode returns the method's mapping without its name and type: the
// parameters that its type decodes (method.Type's New); nil for a method
// read back from results.json.
func (m *MethodSpec) ParamsNode() *yaml.Node { return m.params }

// UnmarshalYAML splits the mapping into name, type and parameters.
func (m *MethodSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a method is a mapping (name: ..., type: ..., parameters)", n.Line)
	}
	m.params = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name":
			m.Name = v.Value
		case "type":
			m.Type = v.Value
		default:
			m.params.Content = append(m.params.Content, k, v)
		}
	}
	return nil
}

// MarshalJSON records the name, the type and the decoded parameters.
func (m MethodSpec) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	for k, v := range m.raw {
		out[k] = v
	}
	if m.Params != nil {
		b, err := json.Marshal(m.Params)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, err
		}
	}
	out["name"], out["type"] = m.Name, m.Type
	return json.Marshal(out)
}

// UnmarshalJSON reads a recorded method back (for reports).
func (m *MethodSpec) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &m.raw); err != nil {
		return err
	}
	m.Name, _ = m.raw["name"].(string)
	m.Type, _ = m.raw["type"].(string)
	return nil
}

// Decode decodes an experiment file strictly into a Config and returns
// it with the file's document, from which At gives the lines of settings
// for later errors. It decodes no task or method (package experiment's
// plan does) and checks no value. Its errors wrap ErrConfig: an empty
// file; a document over 1 MiB or whose aliases stand for more than
// strictyaml.MaxAliasNodes nodes (refused before decoding, wrapping
// strictyaml.ErrTooLarge); an unknown key, named with its line, its
// section and the keys allowed there; a value of the wrong type; a second
// document.
func Decode(b []byte) (*Config, *yaml.Node, error) {
	var cfg Config
	if err := strictyaml.Unmarshal(b, &cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%w: empty file", ErrConfig)
		}
		if errors.Is(err, strictyaml.ErrTooLarge) {
			return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		return nil, nil, fmt.Errorf("%w: %s", ErrConfig, explainYAML(err))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	for i := range cfg.Tasks {
		cfg.Tasks[i].index = i
	}
	return &cfg, &root, nil
}

var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

// explainYAML rewrites yaml.v3's unknown-field messages, which name the
// Go type (configTypes), into ones that name the section and list the
// allowed keys.
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
			msgs[i] = fmt.Sprintf("line %s: unknown key %q in %s (allowed: %s)", sub[1], sub[2], t.section, strings.Join(strictyaml.Keys(t.typ), ", "))
		}
	}
	return strings.Join(msgs, "; ")
}

var configTypes = map[string]struct {
	section string
	typ     reflect.Type
}{
	"config.Config":      {"the experiment", reflect.TypeFor[Config]()},
	"config.DataConfig":  {"data", reflect.TypeFor[DataConfig]()},
	"config.QuickConfig": {"quick", reflect.TypeFor[QuickConfig]()},
	"config.PartsConfig": {"data.parts", reflect.TypeFor[PartsConfig]()},
}

// At returns "line N: " for the setting of the file whose document is
// root that path reaches, following mapping keys (strings) and sequence
// indices (ints): At(root, "tasks", 3, "synthetic") is the line of the
// fourth task's synthetic key. A key the mapping lacks gives the
// mapping's line; a path through another kind of node, or past the end
// of a sequence, gives "". Errors prefix it to name the setting's line.
func At(root *yaml.Node, path ...any) string {
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

// Sets reports whether the file whose document is root gives the
// top-level key, so that a zero it gives is not taken for a default; false
// for a nil root.
func Sets(root *yaml.Node, key string) bool {
	if root == nil {
		return false
	}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// FoldGroups returns the groups that the validation folds keep together
// (classify.NewFoldGroups): FoldsBy's across classes, FoldsWithin's
// within each class, or none; an error when both are set.
func (c *Config) FoldGroups() (classify.FoldGroups, error) {
	return classify.NewFoldGroups(c.FoldsBy, c.FoldsWithin)
}
