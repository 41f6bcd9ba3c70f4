package main

import (
	"fmt"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func mergeCommand() *cli.Command {
	return command("merge", "SHARD_DIR...", "join the output folders of the shards of a describe run or of an experiment run",
		[]cli.Flag{outFlag("output `DIR` (required; created if needed)")},
		func(c *cli.Context) error {
			out, err := requiredOut(c, c.NArg() > 0, "the SHARD_DIR of every shard")
			if err != nil {
				return err
			}
			if _, err := store.OpenSet(c.Args().First(), store.FormatRunShard); err == nil {
				return mergeRun(c, out)
			}
			meta, err := store.Merge(c.Context, out, c.Args().Slice())
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "merged %s: %s of %dx%d from %s (%d failed) into %s\n",
				plural.Of(c.NArg(), "shard"), plural.Of(meta.Counts.Descriptors, "descriptor"), meta.Dim, meta.Dim, plural.Of(meta.Counts.Images, "image"), meta.Counts.Failed, out)
			return nil
		})
}

// mergeRun joins the partial results of the shards of covpipe run
// --shard into out, as the run would have written them unsharded.
func mergeRun(c *cli.Context, out string) error {
	var parts []*experiment.Partial
	for _, dir := range c.Args().Slice() {
		set, err := store.OpenSet(dir, store.FormatRunShard)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		b, err := set.ReadFile(experiment.PartialFile)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		p, err := experiment.DecodePartial(dir, b)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		parts = append(parts, p)
	}
	res, err := experiment.Merge(parts)
	if err != nil {
		return err
	}
	return intoFolder(c, out, store.FormatRun, func(dst *store.Folder) error {
		if err := writeRun(dst, res, nil, report.Options{}); err != nil {
			return err
		}
		return printRun(c, res, out)
	})
}
