package method

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/hpe"
)

func TestHPE(t *testing.T) {
	out, x, labels, train, test := classifyDrawn(t, "hpe", "{mask: border, step: 1, locals: 3, h: 0.5, generic: 0.25, local: 0.25}")
	// The truth: package hpe's ranking of the identities' signatures, from
	// images rebuilt here, the training images of an identity together.
	opts := hpe.Options{Mask: appearance.MaskOptions{Kind: appearance.BorderMask}, Local: 3}
	weights := hpe.Weights{H: 0.5, Generic: 0.25, Local: 0.25}
	image := func(i int) *appearance.Image { return drawnImage(t, x, i) }
	describe := func(imgs ...*appearance.Image) *hpe.Signature {
		s, err := hpe.Describe(context.Background(), imgs, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	groups := make([][]*appearance.Image, 3)
	for _, i := range train {
		groups[labels[i]] = append(groups[labels[i]], image(i))
	}
	gallery := make([]*hpe.Signature, 3)
	for id, g := range groups {
		gallery[id] = describe(g...)
	}
	checkRankings(t, out, labels, test, func(i int) ([]int, error) {
		order, _, err := hpe.Rank(context.Background(), describe(image(i)), gallery, weights)
		return order, err
	})
	if out.Params["h"] != 0.5 || out.Params["generic"] != 0.25 || out.Params["local"] != 0.25 {
		t.Errorf("params %v", out.Params)
	}
}

func TestHPEParams(t *testing.T) {
	checkParamErrors(t, "hpe", [][2]string{
		{"{mask: stel}", "mask"},
		{"{h: -1}", "weights"},
		{"{h: 0, generic: 0, local: 0}", "weights"},
		{"{patch: 9}", "patch"},
		{"{epitome: -2}", "epitome size"},
		{"{stride: -1}", "stride"},
		{"{iterations: -1}", "iterations"},
		{"{locals: -1}", "local"},
		{"{beta: 1}", "beta"},
		{"{step: -1}", "step"},
	})
	spec := newMethod(t, "hpe", "{}").Spec()
	if r := spec.Vectors; r != (classify.VectorRequest{Features: "y,R,G,B", Step: 2}) {
		t.Errorf("hpe asks for %v", r)
	}
	third := 1.0 / 3
	if p := spec.Params.(hpeParams); p.Mask != "centre" || *p.H != third || *p.Generic != third || *p.Local != third ||
		p.Epitome != 8 || p.Patch != 4 || p.Stride != 2 || p.Iterations != 10 || p.Locals != 4 || p.Step != 2 {
		t.Errorf("default params %+v", p)
	}
}
