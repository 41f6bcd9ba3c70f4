package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/experiment/report"
	"github.com/urfave/cli/v2"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "regenerate summary.md and figures from a results.json without recomputing",
		ArgsUsage: "RESULTS.json",
		Description: "Reads OUT/results.json written by covpipe run and rewrites OUT/summary.md and\n" +
			"the figures beside it (or in --out DIR).\n\n" +
			"   covpipe report out/reid/results.json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write into `DIR` instead of the results file's folder"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("report: want exactly one results.json (see covpipe report --help)")
			}
			path := c.Args().First()
			res, err := experiment.ReadResults(path)
			if err != nil {
				return err
			}
			dir := c.String("out")
			if dir == "" {
				dir = filepath.Dir(path)
			}
			if err := report.Write(dir, res); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "%s\nreport written to %s\n", report.Tables(res), filepath.Join(dir, "summary.md"))
			return nil
		},
	}
}
