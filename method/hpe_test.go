package method

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/appearance"
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
	var gallery []*hpe.Signature
	for _, g := range byLabel(labels, train, image) {
		gallery = append(gallery, describe(g...))
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
	params := checkImageParams(t, "hpe", [][2]string{
		{"{h: -1}", "weights"},
		{"{h: 0, generic: 0, local: 0}", "weights"},
		{"{patch: 9}", "patch"},
		{"{epitome: -2}", "epitome size"},
		{"{stride: -1}", "stride"},
		{"{iterations: -1}", "iterations"},
		{"{locals: -1}", "local"},
	})
	third := 1.0 / 3
	if p := params.(hpeParams); p.Mask != "centre" || *p.H != third || *p.Generic != third || *p.Local != third ||
		p.Epitome != 8 || p.Patch != 4 || p.Stride != 2 || p.Iterations != 10 || p.Locals != 4 || p.Step != 2 {
		t.Errorf("default params %+v", p)
	}
}
