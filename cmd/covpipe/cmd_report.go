package main

import (
	"fmt"
	"path/filepath"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/experiment/report"
	"github.com/urfave/cli/v2"
)

func reportCommand() *cli.Command {
	return command("report", "RESULTS.json", "regenerate summary.md and figures from a results.json without recomputing",
		[]cli.Flag{outFlag("write into `DIR` instead of the results file's folder")},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return argsError(c, "exactly one results.json")
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
		})
}
