package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/internal/memlimit"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

// historyBytes is what an iteration of learn holds until learn.json is
// written: its rsr.LearnIteration and iteration record, and its indented
// JSON text, twice (marshalled, then appended to).
const historyBytes = 512

func learnCommand() *cli.Command {
	return command("learn", "DESCRIPTORS", "learn a dictionary of SPD atoms from descriptors (the paper's Algorithm 1)",
		append(codingFlags("(d-1)/2, or 0.5 for d <= 2", "a ratio of 0.1"),
			requiredInt{&cli.IntFlag{Name: "atoms", Usage: "dictionary size `N` (required)"}},
			&cli.StringFlag{Name: "init", Value: "random", Usage: "initial atoms `INIT`: random (N random samples), kmeans (Riemannian k-means centroids), random-spd (random SPD matrices of the samples' spectrum) or wishart (Wishart matrices of mean I)"},
			&cli.IntFlag{Name: "iters", Value: 20, Usage: "iterations `T` >= 1 of Algorithm 1"},
			&cli.Float64Flag{Name: "tolerance", Usage: "stop early when J's relative change is below `TOL` (0: run every iteration)"},
			switchFlag("keep-scale", "skip Algorithm 1's last step, normalising each atom by its largest eigenvalue"),
			&cli.StringFlag{Name: "update", Value: "fixed-point", Usage: "atom `UPDATE`: fixed-point (the paper's) or riemannian (a Riemannian gradient step with Armijo's line search: J never rises)"},
			&cli.StringFlag{Name: "class", Usage: "learn from the descriptors of the class `NAME` only (a labelled describe folder): a dictionary that covpipe fit takes as that class's atoms"},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed `N` of the initialisation"},
		),
		func(c *cli.Context) error {
			out, err := requiredOut(c, c.NArg() == 1, "one DESCRIPTORS folder or .npy file")
			if err != nil {
				return err
			}
			switch {
			case !c.IsSet("atoms"):
				return errors.New("learn: --atoms N, the dictionary size, is required")
			case c.Int("atoms") < 1:
				return fmt.Errorf("learn: --atoms %d: want the dictionary size N >= 1", c.Int("atoms"))
			case c.Int("iters") < 1:
				return fmt.Errorf("learn: --iters %d: want T >= 1 iterations", c.Int("iters"))
			}
			if err := memlimit.Check(0, "", memlimit.Estimate{Key: "--iters",
				What:  fmt.Sprintf("%d iterations keep an entry each in learn.json's history", c.Int("iters")),
				Bytes: float64(c.Int("iters")) * historyBytes}); err != nil {
				return fmt.Errorf("learn: %w", err)
			}
			workers, err := workersFlag(c)
			if err != nil {
				return err
			}
			// The output folder is taken before anything is computed.
			return intoFolder(c, out, store.FormatDictionary, func(dst *store.Folder) error {
				input := c.Args().First()
				m, err := store.ReadMatrices(input)
				if err != nil {
					return fmt.Errorf("learn: %w", err)
				}
				set, meta, err := spdSet(m)
				if err != nil {
					return fmt.Errorf("learn: %w", err)
				}
				class := c.String("class")
				if class != "" {
					if set, meta, err = readClass(input, m, set, class); err != nil {
						return fmt.Errorf("learn: --class %s: %w", class, err)
					}
				}
				init, err := rsr.ParseInitMethod(c.String("init"))
				if err != nil {
					return fmt.Errorf("learn: --init: %w", err)
				}
				lasso, err := lassoFlags(c)
				if err != nil {
					return fmt.Errorf("learn: %w", err)
				}
				update, err := rsr.ParseAtomUpdate(c.String("update"))
				if err != nil {
					return fmt.Errorf("learn: --update: %w", err)
				}
				o := rsr.DictionaryOptions{
					Atoms: c.Int("atoms"), Kernel: spd.SteinKernel{Sigma: sigmaFlag(c, set.Dim()), Pseudo: c.Bool("pseudo-kernel")}, Lasso: lasso,
					Iters: c.Int("iters"), Tol: c.Float64("tolerance"), Init: init, Seed: c.Uint64("seed"),
					Workers: workers, KeepScale: c.Bool("keep-scale"), Update: update,
					Progress: newReporter(c.Context, c.App.ErrWriter, newLogger(c.App.ErrWriter)),
				}
				start := time.Now()
				dict, err := rsr.FitDictionary(c.Context, set, o)
				if err != nil {
					return fmt.Errorf("learn %s: %w%s", input, err, pseudoHint(err))
				}
				log := dictionary.Record{
					Version: version.String(), Input: input, Samples: set.Len(), Dim: set.Dim(), Atoms: o.Atoms,
					Init: init.String(), Iters: o.Iters, Tol: o.Tol, Sigma: o.Kernel.Sigma, Pseudo: o.Kernel.Pseudo, Sparsity: dictionary.SparsityOf(lasso),
					KeepScale: o.KeepScale, Update: update.String(), Seed: o.Seed, J: dict.J,
					Converged: dict.Converged, Unconverged: dict.Unconverged, Seconds: time.Since(start).Seconds(),
				}
				if class != "" {
					log.Class, log.Extraction = class, meta
				}
				for _, it := range dict.History {
					log.History = append(log.History, dictionary.IterationOf(it))
				}
				d := set.Dim()
				if err := dictionary.Write(dst, dict.Atoms, &log); err != nil {
					return fmt.Errorf("learn: %w", err)
				}
				if err := dst.Commit(); err != nil {
					return fmt.Errorf("learn: %w", err)
				}
				kept := 0
				for _, it := range dict.History {
					kept += it.Kept()
				}
				fmt.Fprintf(c.App.Writer, "learned %s of %dx%d from %s in %s (%.1f s): J %.6g -> %.6g, %s kept back; %s\n",
					plural.Of(o.Atoms, "atom"), d, d, plural.Of(set.Len(), "matrix"), plural.Of(len(dict.History), "iteration"), log.Seconds, firstJ(dict), dict.J, plural.Of(kept, "atom update"), filepath.Join(out, dictionary.AtomsFile))
				if dict.J > firstJ(dict) && !o.KeepScale {
					fmt.Fprintln(c.App.Writer, "warning: J rose: Algorithm 1 normalises every atom to unit spectral norm, which moves the atoms off the scale of these matrices (the Stein kernel is not invariant to scaling one argument); --keep-scale skips that step")
				}
				return nil
			})
		})
}

// codingFlags are the flags of learn and encode: the output folder, the
// kernel's σ and whether it may be a pseudo-kernel, the sparsity weight
// and the worker count, with the defaults each command describes.
func codingFlags(sigmaDefault, lambdaDefault string) []cli.Flag {
	return []cli.Flag{
		outFlag("output `DIR` (required; created if needed)"),
		&cli.Float64Flag{Name: "sigma", Usage: "Stein kernel `σ` (Theorem 1: 0.5, 1, ..., (d-1)/2 or above)", DefaultText: sigmaDefault},
		switchFlag("pseudo-kernel", "allow a σ outside Theorem 1's set: the Stein kernel is then a pseudo-kernel, whose Gram matrices may be indefinite"),
		&cli.Float64Flag{Name: "lambda", Usage: "sparsity weight `λ` on the paper's scale", DefaultText: lambdaDefault},
		&cli.Float64Flag{Name: "lambda-ratio", Usage: "sparsity weight relative to each matrix, `R` in (0, 1): λ = R·λ_max(x)", DefaultText: lambdaDefault},
		&cli.IntFlag{Name: "workers", Usage: "number `N` of goroutines (0: all cores); the output does not depend on it"},
	}
}

// firstJ is J after the first coding step.
func firstJ(d *rsr.Dictionary) float64 {
	if len(d.History) == 0 {
		return d.J
	}
	return d.History[0].J
}

// readSPD reads a describe folder or (n, d, d) .npy file and checks that
// every matrix is SPD; errors name the file and the matrix. It also
// returns the folder's meta, nil for a .npy file. A torn describe folder
// is an error (store.ErrTorn) asking to rerun describe.
func readSPD(path string) (*spd.Set, *store.Meta, error) {
	m, err := store.ReadMatrices(path)
	if err != nil {
		return nil, nil, err
	}
	return spdSet(m)
}

// readClass returns the descriptors of the class class among all, the
// checked matrices m of the labelled describe folder path (spdSet), as a
// subset of all (their log-determinants are not computed again), with the
// folder's meta without its files and shard. It returns an error for a
// .npy file (it has no labels) and for a class without descriptors,
// naming the folder's classes.
func readClass(path string, m *store.Matrices, all *spd.Set, class string) (*spd.Set, *store.Meta, error) {
	if m.Output == nil {
		return nil, nil, fmt.Errorf("%s has no labels: give a describe folder of labelled images", path)
	}
	var idx []int
	var classes []string
	for i, r := range m.Output.Rows {
		if r.Label == class {
			idx = append(idx, i)
		} else if !slices.Contains(classes, r.Label) {
			classes = append(classes, r.Label)
		}
	}
	if len(idx) == 0 {
		return nil, nil, fmt.Errorf("no descriptor of %s has label %q (it has %d classes: %q, ...)", path, class, len(classes), classes[:min(3, len(classes))])
	}
	meta := m.Output.Meta
	meta.Files, meta.Shard = nil, nil
	return all.Subset(idx), &meta, nil
}

// spdSet checks that the matrices m read are SPD (errors name the file
// and the matrix) and returns them with their folder's meta, nil for a
// .npy file.
func spdSet(m *store.Matrices) (*spd.Set, *store.Meta, error) {
	set, err := spd.NewSetFromData(m.D, m.Data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	if m.Output == nil {
		return set, nil, nil
	}
	return set, &m.Output.Meta, nil
}

// lassoFlags reads --lambda and --lambda-ratio: one of them, the ratio 0.1
// when neither is given.
func lassoFlags(c *cli.Context) (rsr.LassoOptions, error) {
	switch {
	case c.IsSet("lambda") && c.IsSet("lambda-ratio"):
		return rsr.LassoOptions{}, errors.New("give --lambda (absolute, the paper's scale) or --lambda-ratio (relative to each sample), not both")
	case c.IsSet("lambda"):
		return rsr.LassoOptions{Lambda: c.Float64("lambda")}, nil
	case c.IsSet("lambda-ratio"):
		r := c.Float64("lambda-ratio")
		if err := rsr.CheckLambdaRatio(r); err != nil {
			hint := ""
			if r == 0 {
				hint = "; for λ = 0 (least squares) give --lambda 0"
			}
			return rsr.LassoOptions{}, fmt.Errorf("--lambda-ratio %v: %w%s", r, err, hint)
		}
		return rsr.LassoOptions{LambdaRatio: r}, nil
	}
	return rsr.LassoOptions{LambdaRatio: 0.1}, nil
}

// pseudoHint names the flag that allows a σ outside Theorem 1's set,
// for an error that refuses one.
func pseudoHint(err error) string {
	if errors.Is(err, spd.ErrSigma) {
		return " (--pseudo-kernel)"
	}
	return ""
}

// sigmaFlag returns --sigma, or by default spd.DefaultSigma: the
// smallest σ of Theorem 1's continuous range, (d−1)/2, or 0.5 for d = 1, 2.
func sigmaFlag(c *cli.Context, d int) float64 {
	if c.IsSet("sigma") {
		return c.Float64("sigma")
	}
	return spd.DefaultSigma(d)
}
