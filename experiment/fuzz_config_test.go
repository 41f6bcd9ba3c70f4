package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse, the YAML experiment loader. A
// configuration it accepts must satisfy the invariants that Run relies on
// (repeats >= 1, workers >= 0, folds >= 1, cmc >= 0, a known plot, cmc
// figures only with ranks, and non-empty, uniquely named tasks and
// methods, each method with a type), must record as JSON (results.json's
// "config"), and must parse again from that record, as YAML is a superset
// of JSON, to the same record: the configuration as run is a
// configuration.
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
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		c := p.Config
		if c.Repeats < 1 || c.Workers < 0 || c.Folds < 1 || c.CMC < 0 {
			t.Fatalf("accepted repeats %d, workers %d, folds %d, cmc %d", c.Repeats, c.Workers, c.Folds, c.CMC)
		}
		if c.Plot > PlotEnergy || c.Plot == PlotCMC && c.CMC == 0 {
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
