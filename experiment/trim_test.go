package experiment

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/classify"
)

// TestTrimRankings checks that trimRankings keeps each ranking's first
// max(ranks, 2) classes (all of a shorter one), with nothing past them
// in reach once one is cut, and that the CMC up to ranks, computed on the whole
// rankings, is unchanged; ranks 0 changes nothing.
func TestTrimRankings(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const classes = 12
	n := 200
	whole := make([][]int, n)
	truth := make([]int, n)
	for q := range whole {
		whole[q] = rng.Perm(classes)[:1+rng.IntN(classes)]
		truth[q] = rng.IntN(classes)
	}
	for _, ranks := range []int{0, 1, 2, 5, classes, classes + 3} {
		out := &classify.Outcome{Ranking: make([][]int, n)}
		for q, r := range whole {
			out.Ranking[q] = slices.Clone(r)
		}
		trimRankings(out, ranks)
		// Rankings are copied into one array when one of them is cut.
		cut := ranks > 0 && slices.ContainsFunc(whole, func(r []int) bool { return len(r) > max(ranks, 2) })
		for q, r := range out.Ranking {
			want := whole[q]
			if ranks > 0 {
				want = want[:min(len(want), max(ranks, 2))]
			}
			if !slices.Equal(r, want) || (cut && cap(r) != len(r)) {
				t.Fatalf("ranks %d, query %d: %v (capacity %d), want %v", ranks, q, r, cap(r), want)
			}
		}
		if ranks == 0 {
			continue
		}
		got, err := CMC(out.Ranking, truth, ranks)
		if err != nil {
			t.Fatal(err)
		}
		want, err := CMC(whole, truth, ranks)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("ranks %d: CMC %v, want %v", ranks, got, want)
		}
	}
	trimRankings(nil, 3) // no outcome: nothing to do
}
