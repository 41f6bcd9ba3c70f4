package experiment_test

import (
	"context"
	"fmt"
	"log"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/store"
)

// ExampleMerge runs a small synthetic experiment in three shards, as three
// machines of a cluster would, and merges their partial results into the
// results of one run.
func ExampleMerge() {
	src := experiment.Source{Path: "tiny.yaml", YAML: `
name: tiny
seed: 1
repeats: 2
tasks:
  - {name: easy, synthetic: {classes: 3, dim: 3, samples: 120, train: 0.5, spread: 1, variance: 0.85}}
methods:
  - {name: nn-airm, type: nn, metric: airm}
  - {name: nn-stein, type: nn, metric: stein}
`}
	var parts []*experiment.Partial
	for i := range 3 {
		plan, err := src.Plan()
		if err != nil {
			log.Fatal(err)
		}
		p, err := experiment.RunPartial(context.Background(), plan, src, experiment.Options{Shard: store.Shard{Index: i, Count: 3}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("shard %s: %d of %d units\n", p.Shard, len(p.Records), p.Units)
		parts = append(parts, p)
	}
	res, err := experiment.Merge(parts)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Printf("%s %s: %d repeats\n", r.Task, r.Method, len(r.Runs))
	}
	// Output:
	// shard 0/3: 2 of 4 units
	// shard 1/3: 1 of 4 units
	// shard 2/3: 1 of 4 units
	// easy nn-airm: 2 repeats
	// easy nn-stein: 2 repeats
}
