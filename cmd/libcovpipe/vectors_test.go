//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/store"
	"go.yaml.in/yaml/v3"
)

// personFolders writes the class folders train/CLASS and test/CLASS of
// drawn people (imagetest.PersonPlanes), an identity per class, shifted
// and with noise drawn from a fixed seed, and returns the two folders.
func personFolders(t *testing.T, train, test int) (trainDir, testDir string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	const w, h = imagetest.PersonW, imagetest.PersonH
	for c, clothes := range imagetest.Clothes {
		for i := range train + test {
			planes := imagetest.PersonPlanes(clothes, rng.IntN(3))
			img := image.NewNRGBA(image.Rect(0, 0, w, h))
			for p := range w * h {
				var rgb [3]uint8
				for k := range rgb {
					v := planes[(k+1)*w*h+p] + 0.05*rng.NormFloat64()
					rgb[k] = uint8(255 * min(1, max(0, v)))
				}
				img.SetNRGBA(p%w, p/w, color.NRGBA{rgb[0], rgb[1], rgb[2], 255})
			}
			part := "train"
			if i >= train {
				part = "test"
			}
			imagetest.Write(t, filepath.Join(dir, part, "id"+strconv.Itoa(c), strconv.Itoa(i)+".png"), img)
		}
	}
	return filepath.Join(dir, "train"), filepath.Join(dir, "test")
}

// describeABI describes the folder dir through covpipe_describe with the
// JSON options: the descriptors, the vectors and the metadata.
func describeABI(t *testing.T, dir, options string) (x, vectors []float64, meta *store.Meta) {
	t.Helper()
	var r uintptr
	mustOK(t, "describe", covpipe_describe(0, cs(t, `["`+dir+`"]`), cs(t, options), &r))
	defer release(t, r)
	x, _ = resultArray(t, r, "X")
	vectors, _ = resultArray(t, r, "vectors")
	var res struct {
		Meta store.Meta `json:"meta"`
	}
	if err := json.Unmarshal([]byte(resultText(t, r)), &res); err != nil {
		t.Fatal(err)
	}
	return x, vectors, &res.Meta
}

// canonical returns the canonical form of the feature set spec.
func canonical(t *testing.T, spec string) string {
	t.Helper()
	set, err := features.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return set.String()
}

// TestVectorMethodsAsFit fits every method type that reads the images'
// vectors beside their descriptors with its registry Example on
// descriptors and vectors of covpipe_describe (asked for the vectors
// that covpipe_method_spec names), and checks that the ABI's answers for
// the test images' descriptors and vectors are, bit for bit, those of
// model.Fit and Model.Predict on the images (covpipe fit and predict),
// with the class probabilities of the methods that give them, once the
// fit's cancel token is released; that the model reports the vectors it
// reads; and that it refuses to answer without them.
func TestVectorMethodsAsFit(t *testing.T) {
	trainDir, testDir := personFolders(t, 4, 2)
	ctx := context.Background()
	infos, err := registry()
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, info := range infos {
		if info.Vectors == nil {
			continue
		}
		tested++
		t.Run(info.Name, func(t *testing.T) {
			var params map[string]any
			if err := yaml.Unmarshal([]byte(info.Example), &params); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(params)
			var p *cchar
			mustOK(t, "method spec", covpipe_method_spec(cs(t, info.Name), cs(t, string(b)), &p))
			var spec specInfo
			if err := json.Unmarshal([]byte(text(t, p)), &spec); err != nil {
				t.Fatal(err)
			}
			if spec.Vectors == nil || *spec.Vectors != *info.Vectors {
				t.Fatalf("method spec vectors %v, the registry's %v", spec.Vectors, info.Vectors)
			}
			vb, _ := json.Marshal(spec.Vectors)
			options := `{"features": "I,Ix,Iy", "vectors": ` + string(vb) + `}`
			x, v, meta := describeABI(t, trainDir, options)
			if meta.Vectors == nil || meta.Vectors.Step != spec.Vectors.Step || meta.Vectors.FeatureSpec != canonical(t, spec.Vectors.FeatureSpec) {
				t.Fatalf("describe's vectors %v, asked %v", meta.Vectors, spec.Vectors)
			}
			labels := make([]string, 0, 12)
			for c := range imagetest.Clothes {
				for range 4 {
					labels = append(labels, "id"+strconv.Itoa(c))
				}
			}
			ob, _ := json.Marshal(fitOptions{Method: info.Name, Params: params, Labels: labels, Seed: 3, Folds: 2, Extraction: meta})
			// The fit's token is released, which cancels it, before the
			// model answers: the model must not keep its cancellation.
			tok := covpipe_cancel_new()
			var h uintptr
			mustOK(t, "fit", covpipe_fit(tok, cs(t, string(ob)), ptr(x), int64(len(labels)), 3, ptr(v), int64(len(v)), &h))
			defer release(t, h)
			release(t, tok)

			do, err := describeOptions{Settings: describe.Settings{Features: "I,Ix,Iy"}}.options()
			if err != nil {
				t.Fatal(err)
			}
			train, err := datasets.Open(trainDir)
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.Fit(ctx, []*datasets.List{train}, model.Options{Method: info.Name, Params: params, Seed: 3, Folds: 2, Describe: do})
			if err != nil {
				t.Fatal(err)
			}
			test, err := datasets.Open(testDir)
			if err != nil {
				t.Fatal(err)
			}
			po, popts := extras(spec)
			ps, err := m.Predict(ctx, []*datasets.List{test}, po)
			if err != nil {
				t.Fatal(err)
			}
			tx, tv, _ := describeABI(t, testDir, options)
			got := predictABI(t, h, tx, 3, tv, popts)
			want := answers(t, m, ps)
			for k := range want {
				sameBits(t, k, got[k], want[k])
			}

			mustOK(t, "info", covpipe_model_info(h, &p))
			var mi modelInfo
			if err := json.Unmarshal([]byte(text(t, p)), &mi); err != nil {
				t.Fatal(err)
			}
			if mi.Vectors == nil || *mi.Vectors != *spec.Vectors || mi.Probabilities != spec.Probabilities {
				t.Errorf("model info vectors %v, probabilities %v; want %v, %v", mi.Vectors, mi.Probabilities, spec.Vectors, spec.Probabilities)
			}
			var r uintptr
			msg := errorOf(covpipe_predict(0, h, ptr(tx), int64(len(tx)/9), 3, nil, 0, nil, &r))
			if msg == "" || r != 0 {
				t.Errorf("predict without vectors: %q, want a refusal", msg)
			}
		})
	}
	if tested != 4 {
		t.Errorf("%d method types read vectors, want 4 (pca-src, gsr, sdalf, hpe)", tested)
	}
}
