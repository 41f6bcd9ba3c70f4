package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func reportCommand() *cli.Command {
	return command("report", "OUT | RESULTS.json", "regenerate summary.md and figures from a results.json without recomputing",
		[]cli.Flag{outFlag("write into `DIR` instead of the results file's folder")},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return argsError(c, "exactly one run's folder or results.json")
			}
			path := c.Args().First()
			st, err := os.Stat(path)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if st.IsDir() {
				dir := path
				path = filepath.Join(dir, results.FileName)
				if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("report: %s holds no %s: give the output folder of a covpipe run", dir, results.FileName)
				}
			}
			dir := c.String("out")
			if dir == "" {
				// Rewriting the folder replaces its set: only a run's.
				if filepath.Base(path) != results.FileName {
					return fmt.Errorf("report: %s is not the %s of a run's folder: give --out DIR to write its report into a folder of its own", path, results.FileName)
				}
				dir = filepath.Dir(path)
			}
			b, err := store.ReadFile(path)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			res, err := results.Decode(path, b)
			if err != nil {
				return err
			}
			// The folder is rewritten as a new set: the results, as they
			// are, with a new summary and figures.
			return intoFolder(c, dir, store.FormatRun, func(f *store.Folder) error {
				if err := writeRun(f, res, b); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%s\nreport written to %s\n", report.Tables(res), filepath.Join(dir, report.SummaryFile))
				return nil
			})
		})
}
