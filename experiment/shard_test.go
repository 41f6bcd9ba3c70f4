package experiment

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/store"
)

// untimed returns the JSON of res without its timings and start time,
// which stay per shard.
func untimed(t *testing.T, res *results.Results) string {
	t.Helper()
	r := *res
	r.Seconds, r.Timings, r.Started = 0, nil, time.Time{}
	r.Results = append([]results.Result(nil), res.Results...)
	for k := range r.Results {
		r.Results[k].Seconds = 0
	}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestShardsMerge runs configs whole and in shards (every unit of a
// split task, an open-set task whole, a best method) and checks that the
// merged results are the whole run's apart from timings, whatever the
// order of the shards, and that merge refuses a missing shard, a shard
// given twice and shards of another config.
func TestShardsMerge(t *testing.T) {
	const head = `
name: shards
seed: 3
repeats: 3
folds: 2
cmc: 2
data:
  dataset: g
  features: I,Ix,Iy
`
	configs := []string{head + `tasks:
  - {name: a, split: {train_per_class: 4}}
  - {name: b, split: {train_per_class: 3}}
  - {name: ab, average: [a, b]}
  - {name: o, split: {train_per_class: 4}, open_set: {unknown: 0.5}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: [0.02, 0.1]}
  - {name: nn-stein, type: nn, metric: stein}
`, head + `tasks:
  - {name: a, split: {train_per_class: 4}}
methods:
  - {name: rsr, sigma: 1, lambda_ratio: 0.02}
  - {name: nn-stein, type: nn, metric: stein}
  - {name: best}
`}
	root := t.TempDir()
	writeGratings(t, root, "g", 4, 6)
	for ci, config := range configs {
		src := Source{Path: "shards.yaml", YAML: config}
		plan, err := src.Plan()
		if err != nil {
			t.Fatal(err)
		}
		whole, err := Run(context.Background(), plan, Options{DataRoot: root})
		if err != nil {
			t.Fatal(err)
		}
		want := untimed(t, whole)
		for _, n := range []int{1, 2, 5} {
			var parts []*Partial
			for i := n - 1; i >= 0; i-- {
				plan, err := src.Plan()
				if err != nil {
					t.Fatal(err)
				}
				p, err := RunPartial(context.Background(), plan, src, Options{DataRoot: root, Shard: store.Shard{Index: i, Count: n}})
				if err != nil {
					t.Fatal(err)
				}
				// Through JSON, as merge reads them.
				b, err := p.Encode()
				if err != nil {
					t.Fatal(err)
				}
				if p, err = DecodePartial("partial.json", b); err != nil {
					t.Fatal(err)
				}
				parts = append(parts, p)
			}
			merged, err := Merge(parts)
			if err != nil {
				t.Fatalf("config %d, %d shards: %v", ci, n, err)
			}
			if got := untimed(t, merged); got != want {
				t.Errorf("config %d, %d shards: merged\n%s\nwhole\n%s", ci, n, got, want)
			}
			if n != 5 {
				continue
			}
			for _, tc := range []struct {
				parts []*Partial
				want  string
			}{
				{parts[1:], "shard 4/5 missing"},
				{append([]*Partial{parts[0]}, parts[:4]...), "given twice"},
			} {
				if _, err := Merge(tc.parts); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("config %d: %v, want an error saying %q", ci, err, tc.want)
				}
			}
			other := *parts[2]
			other.Source.Overrides.Repeats = 2
			if _, err := Merge([]*Partial{parts[0], parts[1], &other, parts[3], parts[4]}); err == nil || !strings.Contains(err.Error(), "otherwise") {
				t.Errorf("config %d: shards of other flags: %v", ci, err)
			}
		}
	}
}
