package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// Manifest lists the runs whose extracts the docs cite and the tables
// made from them (docs/runs/runs.yaml).
type Manifest struct {
	Runs   []*Run   `yaml:"runs"`
	Tables []*Table `yaml:"tables"`

	runs   map[string]*Run
	tables map[string]*Table
}

// Run is one covpipe run: a shipped config, the flags it runs with and the
// edits (overrides) that make it a named variant of that config.
type Run struct {
	// ID names the run; its extract is docs/runs/ID.json.
	ID string `yaml:"id"`
	// Config is the shipped config file, relative to the repository root.
	Config string `yaml:"config"`
	// Quick, Methods, Repeats and Seed are covpipe run's flags --quick,
	// --methods, --repeats and --seed (zero: not given).
	Quick   bool     `yaml:"quick"`
	Methods []string `yaml:"methods"`
	Repeats int      `yaml:"repeats"`
	Seed    *uint64  `yaml:"seed"`
	// Data says that the config reads the data root (covpipe run --data).
	Data bool `yaml:"data"`
	// Overrides edit the config, in order, before it runs.
	Overrides []Override `yaml:"overrides"`
	// About says in a few words what the run is for.
	About string `yaml:"about"`
}

// Override is one edit of a config: exactly one of Set, Delete and Add,
// each naming a path such as "data.gabor_border" or "methods.rsr.sigma"
// (a sequence's element is named by its "name" key or its index).
type Override struct {
	// Set replaces the value at the path, or adds the key to its mapping.
	Set string `yaml:"set"`
	// Delete removes a key of a mapping or an element of a sequence.
	Delete string `yaml:"delete"`
	// Add appends Value to the sequence at the path.
	Add   string    `yaml:"add"`
	Value yaml.Node `yaml:"value"`
}

// DataPlaceholder is the data root written in the commands the docs show.
const DataPlaceholder = "../shared/datasets"

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// LoadManifest reads and checks a manifest. Its YAML is strict: an unknown
// key is an error naming it and its line; a file over strictyaml.MaxSize
// (1 MiB) is refused before it is parsed.
func LoadManifest(path string) (*Manifest, error) {
	b, err := strictyaml.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	m, err := ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return m, nil
}

// ParseManifest decodes and checks a manifest.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := strictyaml.Unmarshal(b, &m); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty manifest")
		}
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Manifest) check() error {
	m.runs = map[string]*Run{}
	for i, r := range m.Runs {
		if err := add(m.runs, i, r, "run", "id", func(r *Run) string { return r.ID }); err != nil {
			return err
		}
		if r.Config == "" {
			return fmt.Errorf("run %s: no config", r.ID)
		}
		if r.Repeats < 0 {
			return fmt.Errorf("run %s: repeats %d, want >= 1 (or leave it out)", r.ID, r.Repeats)
		}
		for j, n := range r.Methods {
			if n == "" || strings.Contains(n, ",") || slices.Contains(r.Methods[:j], n) {
				return fmt.Errorf("run %s: methods: %q is empty, holds a comma or is listed twice", r.ID, n)
			}
		}
		for j, o := range r.Overrides {
			if err := o.check(); err != nil {
				return fmt.Errorf("run %s: override %d: %w", r.ID, j+1, err)
			}
		}
	}
	m.tables = map[string]*Table{}
	for i, t := range m.Tables {
		if err := add(m.tables, i, t, "table", "name", func(t *Table) string { return t.Name }); err != nil {
			return err
		}
		if err := t.check(m); err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	return nil
}

// add adds entry i of a list of the manifest to index by its key, after
// checking that the entry is there, that its key (the field keyName) is
// well formed and that no other entry has it; kind names the entries.
func add[T any](index map[string]*T, i int, e *T, kind, keyName string, key func(*T) string) error {
	if e == nil {
		return fmt.Errorf("%s %d is empty", kind, i+1)
	}
	k := key(e)
	if !idPattern.MatchString(k) {
		return fmt.Errorf("%s %d: %s %q: want lower-case letters, digits, '-' and '.'", kind, i+1, keyName, k)
	}
	if index[k] != nil {
		return fmt.Errorf("%s %s is listed twice", kind, k)
	}
	index[k] = e
	return nil
}

func (o Override) check() error {
	var n int
	for _, p := range []string{o.Set, o.Delete, o.Add} {
		if p != "" {
			n++
		}
	}
	if n != 1 {
		return errors.New("want exactly one of set, delete and add")
	}
	hasValue := o.Value.Kind != 0
	switch {
	case o.Delete != "" && hasValue:
		return fmt.Errorf("delete %s takes no value", o.Delete)
	case o.Delete == "" && !hasValue:
		return fmt.Errorf("%s %s needs a value", o.verb(), o.path())
	}
	return nil
}

func (o Override) verb() string {
	switch {
	case o.Set != "":
		return "set"
	case o.Delete != "":
		return "delete"
	}
	return "add"
}

func (o Override) path() string { return o.Set + o.Delete + o.Add }

// Run returns the run with the given id.
func (m *Manifest) Run(id string) (*Run, error) {
	r := m.runs[id]
	if r == nil {
		return nil, fmt.Errorf("no run %q in the manifest", id)
	}
	return r, nil
}

// Args returns covpipe run's arguments after the config file, with the
// data root dataRoot (none when the run reads no data).
func (r *Run) Args(dataRoot string) []string {
	var a []string
	if r.Quick {
		a = append(a, "--quick")
	}
	if len(r.Methods) > 0 {
		a = append(a, "--methods", strings.Join(r.Methods, ","))
	}
	if r.Repeats > 0 {
		a = append(a, "--repeats", fmt.Sprint(r.Repeats))
	}
	if r.Seed != nil {
		a = append(a, "--seed", fmt.Sprint(*r.Seed))
	}
	if r.Data {
		a = append(a, "--data", dataRoot)
	}
	return a
}

// Command returns the command that reproduces the run as the docs show
// it: covpipe run on the shipped config when the run has no overrides,
// else this tool's run command.
func (r *Run) Command() string {
	if len(r.Overrides) == 0 {
		return strings.Join(append([]string{"covpipe", "run", r.Config}, quoteArgs(r.Args(DataPlaceholder))...), " ")
	}
	return toolCommand + " run " + r.ID
}

// toolCommand runs this tool from the repository root.
const toolCommand = "go run ./internal/tools/doctables"

func quoteArgs(a []string) []string {
	out := make([]string, len(a))
	for i, s := range a {
		if strings.ContainsAny(s, " '\"|&;<>()$`\\*?[]{}") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		out[i] = s
	}
	return out
}
