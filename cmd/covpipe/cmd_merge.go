package main

import (
	"fmt"

	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func mergeCommand() *cli.Command {
	return command("merge", "SHARD_DIR...", "join the output folders of the shards of a describe run",
		[]cli.Flag{outFlag("output `DIR` (required; created if needed)")},
		func(c *cli.Context) error {
			out, err := requiredOut(c, c.NArg() > 0, "the SHARD_DIR of every shard")
			if err != nil {
				return err
			}
			meta, err := store.Merge(c.Context, out, c.Args().Slice())
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "merged %d shards: %d descriptors of %dx%d from %d images (%d failed) into %s\n",
				c.NArg(), meta.Counts.Descriptors, meta.Dim, meta.Dim, meta.Counts.Images, meta.Counts.Failed, out)
			return nil
		})
}
