package main

import (
	"errors"
	"fmt"

	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "join the output folders of the shards of a describe run",
		ArgsUsage: "SHARD_DIR...",
		Description: "Joins the folders written by `covpipe describe --shard I/N` for I = 0..N-1, given in any\n" +
			"order, into DIR: the same bytes as the run without --shard. It refuses missing or repeated\n" +
			"shards and shards of different options, inputs or covpipe versions.\n\n" +
			"   covpipe merge --out out/mars out/mars-0 out/mars-1 out/mars-2",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `DIR` (required; created if needed)"},
		},
		OnUsageError: usageError("merge"),
		Action: func(c *cli.Context) error {
			out := c.String("out")
			if out == "" {
				return errors.New("merge: --out DIR is required")
			}
			if c.NArg() == 0 {
				return errors.New("merge: want the SHARD_DIR of every shard (see covpipe merge --help)")
			}
			meta, err := store.Merge(out, c.Args().Slice())
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "merged %d shards: %d descriptors of %dx%d from %d images (%d failed) into %s\n",
				c.NArg(), meta.Counts.Descriptors, meta.Dim, meta.Dim, meta.Counts.Images, meta.Counts.Failed, out)
			return nil
		},
	}
}
