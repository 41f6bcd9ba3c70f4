package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/internal/strictyaml"
)

// FuzzParse feeds arbitrary bytes to Parse, the YAML experiment loader. A
// configuration it accepts must satisfy the invariants that Run relies on
// (repeats >= 1, workers >= 0, folds >= 1, cmc >= 0, a known plot, cmc
// figures only with ranks, and non-empty, uniquely named tasks and
// methods, each method with a type), must be judged by the memory bound
// without a panic and, when it fits the default bound, size nothing
// beyond it (checkBounds), must record as JSON (results.json's "config"),
// and must parse again from that record, as YAML is a superset of JSON,
// to the same record: the configuration as run is a configuration.
func FuzzParse(f *testing.F) {
	f.Add([]byte(validYAML))
	shipped, _ := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	for _, p := range shipped {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{}"))
	f.Add([]byte("repeats: 1\ntasks: [{name: a, synthetic: {}}]\nmethods: [nn]\n"))
	f.Add([]byte("repeats: 1\ntasks:\n  - name: a\n    synthetic: {classes: 2, dim: 2, samples: 8}\nmethods:\n  - {name: nn, metric: stein}\n"))
	// The probe's configs: sizes without bound, paths out of the data
	// root, a degenerate σ, a repeated invalid alias, an alias bomb and
	// a file over 1 MiB with a bad last line.
	for _, probe := range []string{probeRepeats, probeSamples, probeRegions, probeTraversal, probeMosaic, probeSigma, probeAlias, aliasBomb(),
		strings.Replace(probeRegions, "blocks:10000000:2", "blocks:100000000:2", 1),
		strings.Replace(probeRepeats, "repeats: 1000000000", "repeats: 1\ncmc: 1000000000\nfolds: 1000000000\nworkers: 1000000000", 1),
		validYAML + strings.Repeat("# padding\n", strictyaml.MaxSize/10) + "methods: [\n"} {
		f.Add([]byte(probe))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		checkBounds(t, p)
		c := p.Config
		if c.Repeats < 1 || c.Workers < 0 || c.Folds < 1 || c.CMC < 0 {
			t.Fatalf("accepted repeats %d, workers %d, folds %d, cmc %d", c.Repeats, c.Workers, c.Folds, c.CMC)
		}
		if c.Plot > config.PlotROC || c.Plot == config.PlotCMC && c.CMC == 0 {
			t.Fatalf("accepted plot %v with cmc %d", c.Plot, c.CMC)
		}
		if len(c.Tasks) == 0 || len(c.Tasks) != len(p.tasks) || len(c.Methods) == 0 || len(c.Methods) != len(p.methods) {
			t.Fatalf("accepted %d tasks (%d planned) and %d methods (%d planned)", len(c.Tasks), len(p.tasks), len(c.Methods), len(p.methods))
		}
		seen := map[string]bool{}
		for _, task := range c.Tasks {
			if task.Name == "" || seen[task.Name] {
				t.Fatalf("accepted a task named %q twice or empty", task.Name)
			}
			seen[task.Name] = true
		}
		seen = map[string]bool{}
		for _, m := range c.Methods {
			if m.Name == "" || m.Type == "" || seen[m.Name] {
				t.Fatalf("accepted a method named %q (type %q) twice or empty", m.Name, m.Type)
			}
			seen[m.Name] = true
		}
		rec, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("recording the accepted config: %v", err)
		}
		p2, err := Parse(rec)
		if err != nil {
			t.Fatalf("the recorded config %s does not parse: %v", rec, err)
		}
		rec2, err := json.Marshal(p2.Config)
		if err != nil {
			t.Fatalf("recording the parsed record: %v", err)
		}
		if !bytes.Equal(rec, rec2) {
			t.Fatalf("round trip: %s became %s", rec, rec2)
		}
	})
}

// checkBounds checks that CheckMemory judges p without a panic and that,
// when it admits p under DefaultMaxMemory, no setting it estimates sizes
// more than the bound on its own: repeats, ranks, folds, synthetic
// samples and classes, energy-curve draws, and the data section's
// descriptors and planes per image.
func checkBounds(t *testing.T, p *Plan) {
	t.Helper()
	if err := p.CheckMemory(DefaultMaxMemory); err != nil {
		if !errors.Is(err, describe.ErrMemory) {
			t.Fatalf("CheckMemory: %v, want the memory error", err)
		}
		return
	}
	limit := float64(DefaultMaxMemory)
	c := p.Config
	over := func(what string, bytes float64) {
		if bytes > limit {
			t.Fatalf("admitted %s of %.3g bytes", what, bytes)
		}
	}
	over("repeats", float64(c.Repeats)*repeatBytes)
	over("cmc", 8*float64(c.CMC))
	over("folds", foldBytes*float64(c.Folds))
	for _, task := range p.tasks {
		switch tk := task.(type) {
		case *syntheticTask:
			o := tk.Synthetic
			over("synthetic samples", matrices(o.Samples, o.Dim))
			over("synthetic classes", 8*float64(o.Classes)*float64(o.Classes))
		case *energyCurveTask:
			o := tk.Energy
			over("energy-curve points", 8*float64(o.Points)*float64(o.Dim))
			over("energy-curve samples", matrices(o.Samples, o.Dim))
		}
	}
	if d := p.data; d != nil {
		dim := float64(d.features.Dim())
		over("regions per image", float64(d.layout.Count())*8*dim*dim)
		over("image planes", float64(d.w)*float64(d.h)*8*dim)
	}
}
