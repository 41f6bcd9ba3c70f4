package model_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/model"
)

// stripes writes a 16×16 PNG of stripes of the given direction to path,
// creating its folder.
func stripes(path string, angle, phase float64) error {
	m := image.NewGray(image.Rect(0, 0, 16, 16))
	for y := range 16 {
		for x := range 16 {
			v := math.Sin(2*math.Pi*(math.Cos(angle)*float64(x)+math.Sin(angle)*float64(y))/5 + phase)
			m.Pix[y*16+x] = uint8(128 + 100*v)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		return err
	}
	return errors.Join(os.MkdirAll(filepath.Dir(path), 0o755), os.WriteFile(path, b.Bytes(), 0o644))
}

// Example fits the paper's RSR on two classes of images (one folder per
// class), saves the model, loads it back and labels a new image.
func Example() {
	dir, err := os.MkdirTemp("", "model-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i := range 4 {
		err = errors.Join(err,
			stripes(filepath.Join(dir, "train", "horizontal", fmt.Sprint(i, ".png")), math.Pi/2, float64(i)),
			stripes(filepath.Join(dir, "train", "vertical", fmt.Sprint(i, ".png")), 0, float64(i)))
	}
	if err := errors.Join(err, stripes(filepath.Join(dir, "new", "query.png"), 0.6, 2.5)); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	train, err := datasets.Open(filepath.Join(dir, "train"))
	if err != nil {
		log.Fatal(err)
	}
	set, err := features.Parse("texture")
	if err != nil {
		log.Fatal(err)
	}
	m, err := model.Fit(ctx, []*datasets.List{train}, model.Options{
		Method:   "rsr",
		Params:   map[string]any{"sigma": 0.5, "lambda_ratio": []float64{0.05, 0.1}},
		Describe: describe.Options{Features: set},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := m.Save(filepath.Join(dir, "model")); err != nil {
		log.Fatal(err)
	}

	loaded, err := model.Load(filepath.Join(dir, "model"))
	if err != nil {
		log.Fatal(err)
	}
	images, err := datasets.Open(filepath.Join(dir, "new"))
	if err != nil {
		log.Fatal(err)
	}
	ps, err := loaded.Predict(ctx, []*datasets.List{images}, model.PredictOptions{Reject: 0.25})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range ps {
		fmt.Printf("%s: %s (score %.2f, SCI %.2f; then %s), rejected: %v\n", p.Path, p.Label, p.Score, p.SCI, p.Second, p.Rejected)
	}
	// Output:
	// query.png: vertical (score 0.76, SCI 0.33; then horizontal), rejected: false
}
