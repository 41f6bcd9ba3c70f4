package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/store"
)

// scenarios returns the campaigns of the commands, over inputs made in
// the work folder.
func (c *campaign) scenarios() []scenario {
	in := func(name string) string { return filepath.Join(c.work, "in", name) }
	images := in("images")
	descA, descB := in("desc-a"), in("desc-b")
	dictA, dictB := in("dict-a"), in("dict-b")
	config := in("tiny.yaml")
	shardsA := []string{in("shard-a-0"), in("shard-a-1")}
	shardsB := []string{in("shard-b-0"), in("shard-b-1")}
	modelA, modelB := in("model-a"), in("model-b")
	imagesOnce := once(func() error { return writeImages(images, 240) })
	fitA := func(out string) []string {
		return []string{"fit", "--method", "nn", "--metric", "stein", "--features", "texture", "--out", out, images}
	}
	fitB := func(out string) []string {
		return []string{"fit", "--method", "rsr", "--sigma", "0.5", "--lambda", "0.1,0.2", "--features", "texture", "--seed", "2", "--workers", "1", "--out", out, images}
	}
	describeB := func(out string, extra ...string) []string {
		args := []string{"describe", "--features", "I,Ix,Iy,Ixx,Iyy,gabor", "--regions", "grid:2x2", "--workers", "1", "--out", out}
		return append(append(args, extra...), images)
	}
	merge := scenario{
		name: "merge", format: store.Format,
		prepare: once(func() error {
			if err := imagesOnce(); err != nil {
				return err
			}
			for i := range 2 {
				shard := fmt.Sprintf("%d/2", i)
				if err := c.covpipe("describe", "--features", "texture", "--regions", "blocks:40:8", "--seed", "1", "--shard", shard, "--out", shardsA[i], images); err != nil {
					return err
				}
				if err := c.covpipe(describeB(shardsB[i], "--shard", shard)...); err != nil {
					return err
				}
			}
			return nil
		}),
		old: func(out string) []string { return append([]string{"merge", "--out", out}, shardsA...) },
		new: func(out string) []string { return append([]string{"merge", "--out", out}, shardsB...) },
	}
	descs := once(func() error {
		if err := imagesOnce(); err != nil {
			return err
		}
		if err := c.covpipe("describe", "--features", "texture", "--regions", "blocks:8:12", "--seed", "2", "--out", descA, images); err != nil {
			return err
		}
		return c.covpipe("describe", "--features", "texture", "--regions", "blocks:4:12", "--seed", "3", "--out", descB, images)
	})
	aimed := merge
	aimed.name, aimed.aimed = "merge-aimed", true
	return []scenario{
		{
			name: "describe", format: store.Format,
			prepare: imagesOnce,
			old: func(out string) []string {
				return []string{"describe", "--features", "texture", "--ridge", "0.01", "--out", out, images}
			},
			new: func(out string) []string { return describeB(out) },
		},
		merge,
		aimed,
		{
			name: "learn", format: store.FormatDictionary,
			prepare: descs,
			old: func(out string) []string {
				return []string{"learn", "--atoms", "8", "--iters", "4", "--seed", "1", "--keep-scale", "--out", out, descA}
			},
			new: func(out string) []string {
				return []string{"learn", "--atoms", "16", "--iters", "6", "--seed", "2", "--keep-scale", "--workers", "1", "--out", out, descA}
			},
			timed: "learn.json", newSeed: 2, seedOf: jsonSeed,
		},
		{
			name: "encode", format: store.FormatCodes,
			prepare: func() error {
				if err := descs(); err != nil {
					return err
				}
				if err := c.covpipe("learn", "--atoms", "8", "--iters", "2", "--seed", "1", "--keep-scale", "--out", dictA, descB); err != nil {
					return err
				}
				return c.covpipe("learn", "--atoms", "32", "--iters", "2", "--seed", "2", "--keep-scale", "--out", dictB, descB)
			},
			old: func(out string) []string { return []string{"encode", "--dict", dictA, "--out", out, descB} },
			new: func(out string) []string {
				return []string{"encode", "--dict", dictB, "--workers", "1", "--out", out, descA}
			},
		},
		{
			name: "run", format: store.FormatRun,
			prepare: func() error { return os.WriteFile(config, []byte(tinyConfig), 0o644) },
			old: func(out string) []string {
				return []string{"run", config, "--seed", "1", "--repeats", "2", "--no-cache", "--out", out}
			},
			new: func(out string) []string {
				return []string{"run", config, "--seed", "2", "--workers", "1", "--no-cache", "--out", out}
			},
			timed: "results.json", newSeed: 2, seedOf: jsonSeed,
		},
		{
			name: "fit", format: store.FormatModel,
			prepare: imagesOnce,
			old:     fitA,
			new:     fitB,
		},
		{
			name: "predict", format: store.FormatPredictions,
			prepare: once(func() error {
				if err := imagesOnce(); err != nil {
					return err
				}
				if err := c.covpipe(fitA(modelA)...); err != nil {
					return err
				}
				return c.covpipe(fitB(modelB)...)
			}),
			old: func(out string) []string { return []string{"predict", "--model", modelA, "--out", out, images} },
			new: func(out string) []string {
				return []string{"predict", "--model", modelB, "--workers", "1", "--out", out, images}
			},
		},
	}
}

// once returns a function that calls f the first time only, and
// returns its error every time.
func once(f func() error) func() error {
	var done bool
	var err error
	return func() error {
		if !done {
			done, err = true, f()
		}
		return err
	}
}

// tinyConfig is run's experiment: two synthetic tasks, three methods and
// a bar chart, a second or two of work.
const tinyConfig = `name: killtest
seed: 1
repeats: 6
plot: bars
tasks:
  - name: easy
    synthetic: {classes: 4, dim: 3, samples: 256, train: 0.5, spread: 1, variance: 0.85}
  - name: hard
    synthetic: {classes: 4, dim: 3, samples: 256, train: 0.5, spread: 1, variance: 2.0}
methods:
  - {name: rsr, sigma: 1, lambda: 0.05}
  - {name: nn-airm, type: nn, metric: airm}
  - {name: nn-stein, type: nn, metric: stein}
`

// jsonSeed returns the "seed" of a JSON object.
func jsonSeed(b []byte) (uint64, error) {
	var v struct {
		Seed *uint64 `json:"seed"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Seed == nil {
		return 0, fmt.Errorf("no seed (%v)", err)
	}
	return *v.Seed, nil
}
