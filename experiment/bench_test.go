package experiment

import (
	"context"
	"testing"
)

// BenchmarkSyntheticProtocol runs configs/synthetic.yaml with 10 repeats
// per task (the full protocol has 100).
func BenchmarkSyntheticProtocol(b *testing.B) {
	plan, err := Load("../configs/synthetic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	plan.Config.Repeats = 10
	for b.Loop() {
		if _, err := Run(context.Background(), plan, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
