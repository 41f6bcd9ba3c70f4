//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"go.yaml.in/yaml/v3"
)

// fitABI fits a model through covpipe_fit and returns its handle.
func fitABI(t *testing.T, o fitOptions, x []float64, d int) uintptr {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var h uintptr
	mustOK(t, "fit", covpipe_fit(0, cs(t, string(b)), ptr(x), int64(len(x)/(d*d)), int64(d), nil, 0, &h))
	t.Cleanup(func() { release(t, h) })
	return h
}

// predictABI answers through covpipe_predict with the JSON options
// (NULL for "") and the vectors v (nil for none): the arrays of its
// result, the answers' and those options ask for.
func predictABI(t *testing.T, h uintptr, x []float64, d int, v []float64, options string) map[string][]float64 {
	t.Helper()
	var r uintptr
	var opts *cchar
	if options != "" {
		opts = cs(t, options)
	}
	var vp unsafe.Pointer
	if v != nil {
		vp = ptr(v)
	}
	n := int64(len(x) / (d * d))
	mustOK(t, "predict", covpipe_predict(0, h, ptr(x), n, int64(d), vp, int64(len(v)), opts, &r))
	defer release(t, r)
	out := map[string][]float64{}
	names := []string{"label", "second", "score", "second_score", "sci", "rejected"}
	for _, extra := range []string{"probabilities", "costs"} {
		if strings.Contains(options, `"`+extra+`": true`) {
			names = append(names, extra)
		}
	}
	for _, name := range names {
		var shape []int64
		out[name], shape = resultArray(t, r, name)
		if len(shape) != 1 && (len(shape) != 2 || shape[0] != n) {
			t.Fatalf("%s: shape %v for %d answers", name, shape, n)
		}
	}
	return out
}

// answers returns the arrays of predictionsResult from the library's own
// predictions.
func answers(t *testing.T, m *model.Model, ps []model.Prediction) map[string][]float64 {
	t.Helper()
	classes := m.Classes()
	out := map[string][]float64{}
	for _, p := range ps {
		l, _ := slices.BinarySearch(classes, p.Label)
		s, ok := slices.BinarySearch(classes, p.Second)
		second := float64(s)
		if !ok {
			second = -1
		}
		rejected := 0.0
		if p.Rejected {
			rejected = 1
		}
		for k, v := range map[string]float64{"label": float64(l), "second": second, "score": p.Score, "second_score": p.SecondScore, "sci": p.SCI, "rejected": rejected} {
			out[k] = append(out[k], v)
		}
		if p.Probabilities != nil {
			out["probabilities"] = append(out["probabilities"], p.Probabilities...)
		}
		if p.Costs != nil {
			out["costs"] = append(out["costs"], p.Costs...)
		}
	}
	return out
}

// extras returns the predict options that ask for what spec gives,
// class probabilities and costs, as model and JSON options.
func extras(spec specInfo) (model.PredictOptions, string) {
	o := model.PredictOptions{Probabilities: spec.Probabilities, Costs: spec.Costs}
	return o, fmt.Sprintf(`{"probabilities": %v, "costs": %v}`, o.Probabilities, o.Costs)
}

// TestEveryMethodAsLibrary fits every method type that takes matrices
// alone with its registry Example through the ABI and through
// model.FitOutput, and checks that their answers agree bit for bit, with
// the class probabilities and costs of the methods that give them, and
// those of the model saved and loaded back through the ABI.
func TestEveryMethodAsLibrary(t *testing.T) {
	train, test, labels, _ := problem(t, 96)
	infos, err := registry()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Vectors != nil {
			continue // reads the images' vectors: TestVectorMethodsAsFit
		}
		t.Run(info.Name, func(t *testing.T) {
			var params map[string]any
			if err := yaml.Unmarshal([]byte(info.Example), &params); err != nil {
				t.Fatal(err)
			}
			o := fitOptions{Method: info.Name, Params: params, Labels: labels, Seed: 3, Folds: 2}
			if info.Dictionary {
				o.Atoms = 8
			}
			h := fitABI(t, o, train, 3)
			po, options := extras(info.specInfo)
			got := predictABI(t, h, test, 3, nil, options)

			rows := make([]store.Row, len(labels))
			for i, l := range labels {
				rows[i] = store.Row{Index: i, Label: l}
			}
			m, err := model.FitOutput(context.Background(), &store.Output{Meta: store.Meta{Dim: 3}, Rows: rows, Data: slices.Clone(train)},
				model.Options{Method: info.Name, Params: params, Seed: 3, Folds: 2, Atoms: o.Atoms})
			if err != nil {
				t.Fatal(err)
			}
			set, _ := spd.NewSetFromData(3, slices.Clone(test))
			ps, err := m.PredictSet(context.Background(), set, po)
			if err != nil {
				t.Fatal(err)
			}
			want := answers(t, m, ps)
			if len(got) != len(want) {
				t.Fatalf("arrays %v, want those of %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			for k := range want {
				sameBits(t, k, got[k], want[k])
			}

			dir := filepath.Join(t.TempDir(), "model")
			mustOK(t, "save", covpipe_model_save(h, cs(t, dir)))
			var loaded uintptr
			mustOK(t, "load", covpipe_model_load(cs(t, dir), &loaded))
			defer release(t, loaded)
			again := predictABI(t, loaded, test, 3, nil, options)
			for k := range want {
				sameBits(t, "loaded "+k, again[k], want[k])
			}

			var p *cchar
			mustOK(t, "info", covpipe_model_info(loaded, &p))
			var mi modelInfo
			if err := json.Unmarshal([]byte(text(t, p)), &mi); err != nil {
				t.Fatal(err)
			}
			if mi.Method != info.Name || !slices.Equal(mi.Classes, m.Classes()) || mi.Dim != 3 || mi.Transforms != m.Transforms() ||
				mi.Probabilities != info.Probabilities || mi.Costs != info.Costs || mi.Vectors != nil {
				t.Errorf("info %+v, want method %s, classes %v, d 3, transforms %v, probabilities %v, costs %v", mi, info.Name, m.Classes(), m.Transforms(), info.Probabilities, info.Costs)
			}
			if !m.Transforms() {
				return
			}
			var r uintptr
			mustOK(t, "transform", covpipe_transform(0, loaded, ptr(test), int64(set.Len()), 3, 0, &r))
			defer release(t, r)
			v, shape := resultArray(t, r, "X")
			x, err := m.TransformSet(context.Background(), set, 0)
			if err != nil {
				t.Fatal(err)
			}
			rn, cn := x.Dims()
			if !slices.Equal(shape, []int64{int64(rn), int64(cn)}) {
				t.Fatalf("shape %v, want (%d, %d)", shape, rn, cn)
			}
			sameBits(t, "codes", v, x.RawMatrix().Data)
		})
	}
}

// TestRegistry checks that the registry lists every method type with the
// parameters it declares.
func TestRegistry(t *testing.T) {
	var p *cchar
	mustOK(t, "registry", covpipe_registry(&p))
	var reg struct {
		Metrics []string     `json:"metrics"`
		Methods []methodInfo `json:"methods"`
	}
	if err := json.Unmarshal([]byte(text(t, p)), &reg); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range reg.Methods {
		names = append(names, m.Name)
		var keys []string
		for _, d := range method.Types()[m.Name].Parameters() {
			keys = append(keys, d.Key)
		}
		var got []string
		for _, p := range m.Params {
			got = append(got, p.Key)
		}
		if !slices.Equal(got, keys) {
			t.Errorf("%s: parameters %v, declared %v", m.Name, got, keys)
		}
	}
	if !slices.Equal(names, method.Names()) {
		t.Errorf("methods %v, want %v", names, method.Names())
	}
	if len(reg.Metrics) != len(spd.Metrics()) {
		t.Errorf("metrics %v", reg.Metrics)
	}
}

// TestDescribeMatchesCollect checks covpipe_describe against
// describe.Collect on a folder of two class folders.
func TestDescribeMatchesCollect(t *testing.T) {
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, class := range []string{"a", "b"} {
		for i := range 3 {
			imagetest.Write(t, filepath.Join(root, class, string(rune('0'+i))+".png"), imagetest.NoiseGray(rng, 16, 12))
		}
	}
	var r uintptr
	mustOK(t, "describe", covpipe_describe(0, cs(t, `["`+root+`"]`), cs(t, `{"features": "I,Ix,Iy", "regions": "grid:1x2"}`), &r))
	defer release(t, r)
	got, shape := resultArray(t, r, "X")
	var res struct {
		Rows []row      `json:"rows"`
		Meta store.Meta `json:"meta"`
	}
	if err := json.Unmarshal([]byte(resultText(t, r)), &res); err != nil {
		t.Fatal(err)
	}

	l, err := datasets.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := features.Parse("I,Ix,Iy")
	o := describe.Options{Features: set}
	o.Regions, _ = covariance.ParseLayout("grid:1x2")
	want, err := describe.Collect(context.Background(), []*datasets.List{l}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shape, []int64{12, 3, 3}) {
		t.Fatalf("shape %v, want (12, 3, 3)", shape)
	}
	sameBits(t, "X", got, want.Data)
	for i, w := range want.Rows {
		if res.Rows[i] != rowOf(w) {
			t.Errorf("row %d: %+v, want %+v", i, res.Rows[i], rowOf(w))
		}
	}
	if res.Meta.FeatureSpec != want.Meta.FeatureSpec || res.Meta.Regions != want.Meta.Regions {
		t.Errorf("meta %+v, want %+v", res.Meta, want.Meta)
	}
}
