package experiment

import (
	"context"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
)

// choiceKey identifies a choice the engine makes by cross-validation on
// a split (a fusion, a best method's candidate): the method's name, the
// items' Data and the training set, its folds and seed. Tasks sharing a
// training set (FERET's four test poses) share the choice, as they share
// parameter choices (classify.Memo).
type choiceKey struct {
	method string
	data   *classify.Data
	train  uint64
	folds  int
	seed   uint64
}

// choiceKeyOf is the key of method name's choice on s.
func choiceKeyOf(name string, s *classify.Split) choiceKey {
	return choiceKey{method: name, data: s.Data, train: hashkey.Ints(s.Train), folds: s.Folds, seed: s.Seed}
}

// fusionMemo remembers fusion choices; the zero value is ready.
type fusionMemo = once.Cache[choiceKey, classify.FusionChoice]

// classifyParts classifies the items of s, each a set of region
// descriptors, with m part by part and fuses their class costs
// (classify.ClassifyParts), under the layout, rule and weights that
// classify.ChooseFusion picks on s's training set; the choice is
// remembered in memo under the method's name.
func classifyParts(ctx context.Context, name string, m classify.Method, s *classify.Split, f classify.Fusing, memo *fusionMemo) (*classify.Outcome, error) {
	choice, err := memo.Do(choiceKeyOf(name, s), func() (classify.FusionChoice, error) { return classify.ChooseFusion(ctx, m, s, f) })
	if err != nil {
		return nil, err
	}
	return classify.ClassifyParts(ctx, m, s, f, choice)
}
