package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"
)

func encodeCommand() *cli.Command {
	return command("encode", "DESCRIPTORS", "sparse codes of descriptors against a dictionary, their tangent-space vectors, or a model's feature vectors",
		append(codingFlags("the dictionary's learn.json, else learn's", "the dictionary's learn.json, else learn's"),
			&cli.StringFlag{Name: "dict", Usage: "the dictionary: a learn output `DIR` or a .npy file (one of --dict, --tangent and --model)"},
			switchFlag("tangent", "write tangent-space vectors vec(log(P^-1/2 X P^-1/2)) at a reference point P instead of sparse codes"),
			&cli.StringFlag{Name: "reference", Usage: "with --tangent, the reference point `P`: mean (the Karcher mean of DESCRIPTORS), identity (log X), or an encode --tangent folder or .npy file of shape (d, d) whose P to reuse", DefaultText: "mean"},
			&cli.StringFlag{Name: "model", Usage: "a model `DIR` of covpipe fit whose method gives feature vectors (codes, tangent-space), which it maps the descriptors to as it does to classify them"},
		),
		func(c *cli.Context) error {
			out, dictPath, modelPath := c.String("out"), c.String("dict"), c.String("model")
			tangent := c.Bool("tangent")
			switch {
			case out == "":
				return errors.New("encode: --out DIR is required")
			case dictPath != "" && modelPath != "" || tangent && (dictPath != "" || modelPath != ""):
				return errors.New("encode: give one of --dict, --tangent and --model")
			case dictPath == "" && modelPath == "" && !tangent:
				return errors.New("encode: --dict DICT (a covpipe learn folder or a .npy file), --tangent (tangent-space vectors) or --model DIR (a covpipe fit folder) is required")
			case c.IsSet("reference") && !tangent:
				return errors.New("encode: --reference is for tangent vectors: give --tangent too")
			case c.NArg() != 1:
				return errors.New("encode: want one DESCRIPTORS folder or .npy file (see covpipe encode --help)")
			}
			if modelPath != "" || tangent {
				for _, f := range []string{"sigma", "pseudo-kernel", "lambda", "lambda-ratio"} {
					if c.IsSet(f) && tangent {
						return fmt.Errorf("encode: --tangent takes no --%s (it is for sparse codes)", f)
					}
					if c.IsSet(f) {
						return fmt.Errorf("encode: --%s with --model: the model codes as it was fitted", f)
					}
				}
			}
			workers, err := workersFlag(c)
			if err != nil {
				return err
			}
			if tangent {
				return encodeTangent(c, out, workers)
			}
			var m *model.Model
			if modelPath != "" {
				// The model is read before the output folder is taken, so
				// that a wrong --model leaves no folder behind.
				if m, err = model.Load(modelPath); err != nil {
					return fmt.Errorf("encode: %w", err)
				}
				if !m.Transforms() {
					return fmt.Errorf("encode: the model %s (method %s) gives no feature vectors, only answers: fit a model of method codes", modelPath, m.Method())
				}
			}
			// The output folder is taken before anything is computed.
			return intoFolder(c, out, store.FormatCodes, func(dst *store.Folder) error {
				input := c.Args().First()
				queries, inputMeta, err := readSPD(input)
				if err != nil {
					return fmt.Errorf("encode: %w", err)
				}
				var codes *mat.Dense
				var log any
				var summary string
				if m != nil {
					if codes, err = m.TransformSet(c.Context, queries, workers); err != nil {
						return fmt.Errorf("encode %s: %w", input, err)
					}
					n, k := codes.Dims()
					log = modelCodes{Version: version.String(), Input: input, Model: modelPath, Method: m.Method(), Samples: n, Columns: k}
					summary = fmt.Sprintf("encoded %s with the model %s: %s", plural.Of(n, "matrix"), modelPath, plural.Of(k, "column"))
				} else if codes, log, summary, err = dictionaryCodes(c, input, queries, dictPath, workers); err != nil {
					return err
				}
				manifest, err := inputManifest(input, inputMeta)
				if err != nil {
					return err
				}
				if err := dictionary.WriteCodes(dst, codes, log, manifest); err != nil {
					return fmt.Errorf("encode: %w", err)
				}
				if err := dst.Commit(); err != nil {
					return fmt.Errorf("encode: %w", err)
				}
				fmt.Fprintf(c.App.Writer, "%s; %s\n", summary, filepath.Join(out, dictionary.CodesFile))
				return nil
			})
		})
}

// modelCodes is encode.json for the feature vectors of a model.
type modelCodes struct {
	Version string `json:"covpipe_version"`
	Input   string `json:"input"`
	Model   string `json:"model"`
	Method  string `json:"method"`
	Samples int    `json:"samples"`
	Columns int    `json:"columns"`
}

// dictionaryCodes codes queries, the descriptors of input, against the
// dictionary at dictPath with the coding flags of c (defaults from the
// dictionary's record), returning the codes, their record and a summary.
func dictionaryCodes(c *cli.Context, input string, queries *spd.Set, dictPath string, workers int) (*mat.Dense, any, string, error) {
	atoms, atomsFile, learned, err := dictionary.Read(dictPath)
	if err != nil {
		return nil, nil, "", fmt.Errorf("encode: dictionary: %w", err)
	}
	if atoms.Dim() != queries.Dim() {
		return nil, nil, "", fmt.Errorf("encode: the dictionary %s holds %dx%d atoms but %s holds %dx%d matrices",
			atomsFile, atoms.Dim(), atoms.Dim(), input, queries.Dim(), queries.Dim())
	}
	k := spd.SteinKernel{Sigma: sigmaFlag(c, atoms.Dim()), Pseudo: c.Bool("pseudo-kernel")}
	lasso, err := lassoFlags(c)
	if err != nil {
		return nil, nil, "", fmt.Errorf("encode: %w", err)
	}
	if learned != nil {
		if !c.IsSet("sigma") {
			k.Sigma = learned.Sigma
			k.Pseudo = k.Pseudo || learned.Pseudo
		}
		if !c.IsSet("lambda") && !c.IsSet("lambda-ratio") {
			lasso = learned.Options()
		}
	}
	lasso.Workers = workers
	codes, certs, err := rsr.Encode(c.Context, queries, atoms, k, lasso)
	if err != nil {
		return nil, nil, "", fmt.Errorf("encode %s: %w%s", input, err, pseudoHint(err))
	}
	n, natoms := codes.Dims()
	log := &dictionary.CodesRecord{Version: version.String(), Input: input, Dictionary: atomsFile, Samples: n, Atoms: natoms,
		Sigma: k.Sigma, Pseudo: k.Pseudo, Sparsity: dictionary.SparsityOf(lasso)}
	for _, cert := range certs {
		log.NonZeros += float64(cert.NonZeros) / float64(n)
		if cert.NonZeros == 0 {
			log.AllZero++
		}
	}
	return codes, log, fmt.Sprintf("encoded %s against %s: %.1f non-zeros per code, %d all-zero", plural.Of(n, "matrix"), plural.Of(natoms, "atom"), log.NonZeros, log.AllZero), nil
}

// inputManifest returns the manifest of the describe folder input whose
// meta.json is inputMeta, nil for a .npy input (inputMeta nil), to carry
// over beside its codes.
func inputManifest(input string, inputMeta *store.Meta) ([]byte, error) {
	if inputMeta == nil {
		return nil, nil
	}
	b, err := store.ReadFile(filepath.Join(input, store.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	// The manifest read again must be the one read with the descriptors,
	// not one a describe wrote since.
	if err := inputMeta.CheckFile(input, store.ManifestFile, b); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return b, nil
}

// encodeTangent writes the tangent-space vectors of the descriptors of
// c's argument at the reference point of --reference into the codes
// folder out (dictionary.WriteTangent).
func encodeTangent(c *cli.Context, out string, workers int) error {
	return intoFolder(c, out, store.FormatCodes, func(dst *store.Folder) error {
		input := c.Args().First()
		set, inputMeta, err := readSPD(input)
		if err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		name := c.String("reference")
		var ref *mat.SymDense
		if r, perr := method.ParseTangentReference(name); perr == nil {
			name = string(r)
			if ref, err = method.TangentReferencePoint(c.Context, r, set, classify.Seq(0, set.Len())); err != nil {
				return fmt.Errorf("encode: reference %s of %s: %w", name, input, err)
			}
		} else if ref, name, err = dictionary.ReadReference(name); err != nil {
			return fmt.Errorf("encode: --reference: %w (want mean, identity, an encode --tangent folder or a .npy file)", err)
		}
		if d := ref.SymmetricDim(); d != set.Dim() {
			return fmt.Errorf("encode: the reference %s is %dx%d but %s holds %dx%d matrices", name, d, d, input, set.Dim(), set.Dim())
		}
		vectors, err := spd.TangentVectors(c.Context, set, nil, ref, workers)
		if err != nil {
			return fmt.Errorf("encode %s: %w", input, err)
		}
		manifest, err := inputManifest(input, inputMeta)
		if err != nil {
			return err
		}
		n, k := vectors.Dims()
		rec := dictionary.TangentRecord{Version: version.String(), Encoding: dictionary.TangentEncoding, Input: input, Reference: name, Samples: n, Dim: set.Dim(), Length: k}
		if err := dictionary.WriteTangent(dst, vectors, ref, &rec, manifest); err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		if err := dst.Commit(); err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		fmt.Fprintf(c.App.Writer, "encoded %d matrices as tangent vectors of length %d at the reference %s; %s\n",
			n, k, name, filepath.Join(out, dictionary.CodesFile))
		return nil
	})
}
