package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func encodeCommand() *cli.Command {
	return command("encode", "DESCRIPTORS", "sparse codes of descriptors against a dictionary, as feature vectors",
		append(codingFlags("the dictionary's learn.json, else learn's", "the dictionary's learn.json, else learn's"),
			&cli.StringFlag{Name: "dict", Usage: "the dictionary: a learn output `DIR` or a .npy file (required)"},
		),
		func(c *cli.Context) error {
			out, dictPath := c.String("out"), c.String("dict")
			switch {
			case out == "":
				return errors.New("encode: --out DIR is required")
			case dictPath == "":
				return errors.New("encode: --dict DICT is required (a covpipe learn folder or a .npy file)")
			case c.NArg() != 1:
				return errors.New("encode: want one DESCRIPTORS folder or .npy file (see covpipe encode --help)")
			}
			workers, err := workersFlag(c)
			if err != nil {
				return err
			}
			// The output folder is taken before anything is computed.
			return intoFolder(c, out, store.FormatCodes, func(dst *store.Folder) error {
				input := c.Args().First()
				queries, inputMeta, err := readSPD(input)
				if err != nil {
					return fmt.Errorf("encode: %w", err)
				}
				atoms, atomsFile, learned, err := dictionary.Read(dictPath)
				if err != nil {
					return fmt.Errorf("encode: dictionary: %w", err)
				}
				if atoms.Dim() != queries.Dim() {
					return fmt.Errorf("encode: the dictionary %s holds %dx%d atoms but %s holds %dx%d matrices",
						atomsFile, atoms.Dim(), atoms.Dim(), input, queries.Dim(), queries.Dim())
				}
				k := spd.SteinKernel{Sigma: sigmaFlag(c, atoms.Dim()), Pseudo: c.Bool("pseudo-kernel")}
				lasso, err := lassoFlags(c)
				if err != nil {
					return fmt.Errorf("encode: %w", err)
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
					return fmt.Errorf("encode %s: %w%s", input, err, pseudoHint(err))
				}
				n, natoms := codes.Dims()
				log := dictionary.CodesRecord{Version: version.String(), Input: input, Dictionary: atomsFile, Samples: n, Atoms: natoms,
					Sigma: k.Sigma, Pseudo: k.Pseudo, Sparsity: dictionary.SparsityOf(lasso)}
				for _, cert := range certs {
					log.NonZeros += float64(cert.NonZeros) / float64(n)
					if cert.NonZeros == 0 {
						log.AllZero++
					}
				}
				var manifest []byte
				if inputMeta != nil {
					b, err := store.ReadFile(filepath.Join(input, store.ManifestFile))
					if err != nil {
						return fmt.Errorf("encode: %w", err)
					}
					// The manifest read again must be the one read with the
					// descriptors, not one a describe wrote since.
					if err := inputMeta.CheckFile(input, store.ManifestFile, b); err != nil {
						return fmt.Errorf("encode: %w", err)
					}
					manifest = b
				}
				if err := dictionary.WriteCodes(dst, codes, &log, manifest); err != nil {
					return fmt.Errorf("encode: %w", err)
				}
				if err := dst.Commit(); err != nil {
					return fmt.Errorf("encode: %w", err)
				}
				fmt.Fprintf(c.App.Writer, "encoded %d matrices against %d atoms: %.1f non-zeros per code, %d all-zero; %s\n",
					n, natoms, log.NonZeros, log.AllZero, filepath.Join(out, dictionary.CodesFile))
				return nil
			})
		})
}
