package method

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/sdalf"
	"gonum.org/v1/gonum/mat"
)

// drawnPeople returns vectors (planes y, R, G, B of 32×64 images) of
// people told apart by the colours of torso and legs, each seen at four
// horizontal shifts, and their labels.
func drawnPeople() (*mat.Dense, []int) {
	const w, h = imagetest.PersonW, imagetest.PersonH
	x := mat.NewDense(len(imagetest.Clothes)*4, 4*w*h, nil)
	var labels []int
	for id, c := range imagetest.Clothes {
		for shift := range 4 {
			x.SetRow(len(labels), imagetest.PersonPlanes(c, shift))
			labels = append(labels, id)
		}
	}
	return x, labels
}

// drawnImage rebuilds image i of drawnPeople from its row of x.
func drawnImage(t *testing.T, x *mat.Dense, i int) *appearance.Image {
	t.Helper()
	v := x.RawRowView(i)
	n := len(v) / 4
	img, err := appearance.NewImage(32, 64, v[n:2*n], v[2*n:3*n], v[3*n:])
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// classifyDrawn runs method type typ with params on drawnPeople, the
// first two images of each person for training and the others for
// testing.
func classifyDrawn(t *testing.T, typ, params string) (out *classify.Outcome, x *mat.Dense, labels, train, test []int) {
	t.Helper()
	x, labels = drawnPeople()
	data := &classify.Data{Labels: labels, Vectors: map[classify.VectorRequest]*classify.Vectors{{Features: sdalfFeatures, Step: 1}: classify.NewVectors(x)}}
	for i := range labels {
		if i%4 < 2 {
			train = append(train, i)
		} else {
			test = append(test, i)
		}
	}
	m := newMethod(t, typ, params)
	out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: 3})
	if err != nil {
		t.Fatal(err)
	}
	return out, x, labels, train, test
}

func TestSDALF(t *testing.T) {
	out, x, labels, train, test := classifyDrawn(t, "sdalf", "{mask: border, step: 1}")
	// The truth: package sdalf's ranking of the identities' training
	// images, from images rebuilt here.
	opts := sdalf.Options{Mask: appearance.MaskOptions{Kind: appearance.BorderMask}}
	sig := func(i int) *sdalf.Signature {
		s, err := sdalf.Describe(drawnImage(t, x, i), opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	gallery := byLabel(labels, train, sig)
	checkRankings(t, out, labels, test, func(i int) ([]int, error) {
		order, _, err := sdalf.Rank(context.Background(), []*sdalf.Signature{sig(i)}, gallery, sdalf.DefaultWeights())
		return order, err
	})
	if out.Params["whsv"] != 0.4 || out.Params["mscr"] != 0.6 || out.Params["gamma"] != 0.4 {
		t.Errorf("params %v", out.Params)
	}
}

// byLabel returns f of the items, grouped by their labels 0, 1 and 2
// (drawnPeople's people).
func byLabel[T any](labels, items []int, f func(i int) T) [][]T {
	out := make([][]T, 3)
	for _, i := range items {
		out[labels[i]] = append(out[labels[i]], f(i))
	}
	return out
}

// checkRankings fails t unless every test item's ranking in out is
// truth's and its prediction its own label.
func checkRankings(t *testing.T, out *classify.Outcome, labels, test []int, truth func(i int) ([]int, error)) {
	t.Helper()
	for q, i := range test {
		order, err := truth(i)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out.Ranking[q], order) || out.Pred[q] != labels[i] {
			t.Errorf("test item %d (person %d): ranking %v, prediction %d; want %v", i, labels[i], out.Ranking[q], out.Pred[q], order)
		}
	}
}

// checkParamErrors fails t unless each of the parameters of method type
// typ (the first of each pair) fails to build with an error naming the
// second.
func checkParamErrors(t *testing.T, typ string, cases [][2]string) {
	t.Helper()
	for _, c := range cases {
		if _, err := buildMethod(t, typ, c[0]); err == nil || !strings.Contains(err.Error(), c[1]) {
			t.Errorf("%s %s: error %v, want one naming %s", typ, c[0], err, c[1])
		}
	}
}

// checkImageParams fails t unless method type typ fails to build on the
// parameters of cases (as checkParamErrors) and on the unknown mask,
// unknown key and negative step that every method on images rejects, and
// by default asks for the planes y, R, G, B at step 2. It returns the
// default parameters.
func checkImageParams(t *testing.T, typ string, cases [][2]string) any {
	t.Helper()
	checkParamErrors(t, typ, append(cases, [][2]string{{"{mask: stel}", "mask"}, {"{beta: 1}", "beta"}, {"{step: -1}", "step"}}...))
	spec := newMethod(t, typ, "{}").Spec()
	if r := spec.Vectors; r != (classify.VectorRequest{Features: "y,R,G,B", Step: 2}) {
		t.Errorf("%s asks for %v", typ, r)
	}
	return spec.Params
}

func TestSDALFParams(t *testing.T) {
	params := checkImageParams(t, "sdalf", [][2]string{
		{"{whsv: -1}", "weights"},
		{"{whsv: 0, mscr: 0}", "weights"},
		{"{gamma: 2}", "gamma"},
	})
	if p := params.(sdalfParams); p.Mask != "centre" || *p.WHSV != 0.4 || *p.MSCR != 0.6 || *p.Gamma != 0.4 || p.Step != 2 {
		t.Errorf("default params %+v", p)
	}
}

// TestImageMethodVectors runs the methods on images without vectors and
// with vectors that are no image.
func TestImageMethodVectors(t *testing.T) {
	for _, typ := range []string{"sdalf", "hpe"} {
		m := newMethod(t, typ, "{step: 1}")
		split := &classify.Split{Data: &classify.Data{Labels: []int{0, 1}}, Train: []int{0}, Test: []int{1}}
		if _, err := classify.Run(context.Background(), m, split); err == nil || !strings.Contains(err.Error(), "no feature vectors") {
			t.Errorf("%s without vectors: %v", typ, err)
		}
		split.Data.Vectors = map[classify.VectorRequest]*classify.Vectors{{Features: sdalfFeatures, Step: 1}: classify.NewVectors(mat.NewDense(2, 6, []float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0}))}
		if _, err := classify.Run(context.Background(), m, split); err == nil || !strings.Contains(err.Error(), "item 0") {
			t.Errorf("%s on vectors of no image: %v", typ, err)
		}
	}
}
