package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/covpipe/covpipe/evaluate"
	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/htmlreport"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func reportCommand() *cli.Command {
	return command("report", "OUT | RESULTS.json | EVALUATION", "regenerate summary.md and figures from a results.json without recomputing; --html: the report as one HTML page, of a run or an evaluation",
		[]cli.Flag{
			outFlag("write into `DIR` instead of the results file's folder"),
			htmlFlag("write report.html too: the report as one self-contained page (tables that sort on a click, figures inline); for the folder of covpipe evaluate, the only file it adds"),
		},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return argsError(c, "exactly one run's folder or results.json, or an evaluation's folder")
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
					if _, err := os.Stat(filepath.Join(dir, evaluate.DocumentFile)); err == nil {
						return reportEvaluation(c, dir)
					}
					return fmt.Errorf("report: %s holds neither a %s nor an %s: give the output folder of covpipe run or of covpipe evaluate", dir, results.FileName, evaluate.DocumentFile)
				}
			} else if filepath.Base(path) == evaluate.DocumentFile {
				return reportEvaluation(c, filepath.Dir(path))
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
				if err := writeRun(f, res, b, report.Options{HTML: c.Bool("html")}); err != nil {
					return err
				}
				written := []string{filepath.Join(dir, report.SummaryFile)}
				if c.Bool("html") {
					written = append(written, filepath.Join(dir, htmlreport.FileName))
				}
				fmt.Fprintf(c.App.Writer, "%s\nreport written to %s\n", report.Tables(res), strings.Join(written, " and "))
				return nil
			})
		})
}

// htmlFlag is --html, which writes report.html, with the usage of the
// command it is of.
func htmlFlag(usage string) cli.Flag { return switchFlag("html", usage) }

// reportEvaluation writes report.html of the evaluation in dir, with
// --html only: the folder (or --out DIR) is rewritten as a new set of
// the evaluation's files, as they are, and the page.
func reportEvaluation(c *cli.Context, dir string) error {
	if !c.Bool("html") {
		return fmt.Errorf("report: %s is the folder of covpipe evaluate, whose figures and tables are those evaluate wrote: give --html to write its report.html", dir)
	}
	set, err := store.OpenSet(dir, store.FormatEvaluation)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var names []string
	files := map[string][]byte{}
	for _, f := range set.Files {
		if f.Name == htmlreport.FileName {
			continue
		}
		b, err := set.ReadFile(f.Name)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		names, files[f.Name] = append(names, f.Name), b
	}
	d, err := evaluate.DecodeDocument(filepath.Join(dir, evaluate.DocumentFile), files[evaluate.DocumentFile])
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	out := c.String("out")
	if out == "" {
		out = dir
	}
	return intoFolder(c, out, store.FormatEvaluation, func(f *store.Folder) error {
		for _, name := range names {
			if err := f.WriteFile(name, files[name]); err != nil {
				return fmt.Errorf("report: %w", err)
			}
		}
		if err := evaluate.WriteHTML(f, d, files); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		_, err := fmt.Fprintf(c.App.Writer, "report written to %s\n", filepath.Join(out, htmlreport.FileName))
		return err
	})
}
