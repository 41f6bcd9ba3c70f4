package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/covpipe/covpipe/experiment"
	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func runCommand() *cli.Command {
	return command("run", "CONFIG", "run an experiment described by a YAML file",
		[]cli.Flag{
			outFlag("output `DIR` (default: out/NAME, NAME from the config)"),
			&cli.IntFlag{Name: "repeats", Usage: "number of random repeats `N`", DefaultText: "the config's"},
			switchFlag("quick", "run the config's documented quick subset (its quick: section: fewer repeats and tasks)"),
			&cli.IntFlag{Name: "workers", Usage: "worker goroutines `N` (0: all cores)", DefaultText: "the config's, else all cores"},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed `N`", DefaultText: "the config's"},
			&cli.StringFlag{Name: "data", Usage: "data root `DIR` that dataset paths in the config are relative to (default: $COVPIPE_DATA, else ./data)"},
			&cli.StringFlag{Name: "cache", Usage: "descriptor cache `DIR` (default: $COVPIPE_CACHE, else the user cache folder/covpipe)"},
			switchFlag("no-cache", "extract descriptors without reading or writing the cache"),
			&cli.StringFlag{Name: "methods", Usage: "run only the methods `NAMES` of the config (comma-separated), e.g. --methods rsr,nn-stein"},
			maxMemoryFlag("what the config's settings make the run hold (repeats, samples, regions per image, ...), estimated before anything is allocated, and on the image planes of descriptor extraction: a config over it fails naming the setting"),
			&cli.StringFlag{Name: "shard", Usage: "run only share `I/N` of the run's units (task, repeat, method), writing partial results that covpipe merge joins; auto (or auto/N) reads I and N from a Slurm array job's or a Kubernetes Indexed Job's environment"},
			htmlFlag("write report.html too: the report as one self-contained page (tables that sort on a click, figures inline)"),
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile to `FILE` (for go tool pprof)"},
			&cli.StringFlag{Name: "memprofile", Usage: "write a heap profile of all allocations to `FILE` when the run ends (go tool pprof -sample_index=alloc_space)"},
		},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return argsError(c, "exactly one CONFIG file")
			}
			var o experiment.Overrides
			o.Quick = c.Bool("quick")
			if c.IsSet("methods") {
				o.Methods = strings.Split(c.String("methods"), ",")
			}
			if c.IsSet("repeats") {
				o.Repeats = c.Int("repeats")
			}
			if c.IsSet("seed") {
				seed := c.Uint64("seed")
				o.Seed = &seed
			}
			if c.IsSet("workers") {
				w, err := workersFlag(c)
				if err != nil {
					return err
				}
				o.Workers = &w
			}
			src, plan, err := experiment.LoadSource(c.Args().First(), experiment.Overrides{})
			if err != nil {
				return err
			}
			if c.IsSet("repeats") && o.Repeats < 1 {
				return fmt.Errorf("run: --repeats %d, want >= 1", o.Repeats)
			}
			if err := plan.Override(o); err != nil {
				return fmt.Errorf("run: %w", err)
			}
			src.Overrides = o
			log := newLogger(c.App.ErrWriter)
			for _, w := range plan.Warnings() {
				log.Warn(w, "config", c.Args().First())
			}
			cfg := plan.Config
			var shard store.Shard
			sharded := c.IsSet("shard")
			if sharded && c.Bool("html") {
				return fmt.Errorf("run: --html with --shard: a shard writes partial results and no report; covpipe report --html OUT writes the merged run's")
			}
			if s := c.String("shard"); sharded {
				if shard, err = store.AutoShard(s, os.Getenv); err != nil {
					return fmt.Errorf("run: --shard: %w", err)
				}
			}
			limit, err := maxMemory(c)
			if err != nil {
				return err
			}
			if err := plan.CheckMemory(limit); err != nil {
				return fmt.Errorf("%s: %w", c.Args().First(), err)
			}
			out := c.String("out")
			if out == "" {
				name, err := folderName(cfg.Name)
				if err != nil {
					return fmt.Errorf("run: the config's name %q cannot name its output folder out/NAME (%v): give --out DIR", cfg.Name, err)
				}
				if sharded {
					name += fmt.Sprintf(".shard-%d-of-%d", shard.Index, shard.Count)
				}
				out = filepath.Join("out", name)
			}
			format := store.FormatRun
			if sharded {
				format = store.FormatRunShard
			}
			// The output folder is taken before anything is computed.
			return intoFolder(c, out, format, func(dst *store.Folder) error {
				if p := c.String("cpuprofile"); p != "" {
					f, err := os.Create(p)
					if err != nil {
						return fmt.Errorf("cpu profile: %w", err)
					}
					defer f.Close()
					if err := pprof.StartCPUProfile(f); err != nil {
						return fmt.Errorf("cpu profile: %w", err)
					}
					defer pprof.StopCPUProfile()
				}
				if p := c.String("memprofile"); p != "" {
					defer func() {
						if err := writeHeapProfile(p); err != nil {
							fmt.Fprintf(c.App.ErrWriter, "memory profile: %v\n", err)
						}
					}()
				}
				cache := ""
				if !c.Bool("no-cache") {
					cache = cacheDir(c.String("cache"))
				}
				opts := experiment.Options{
					Reporter:  newReporter(c.Context, c.App.ErrWriter, log),
					Logger:    log,
					DataRoot:  dataRoot(c.String("data")),
					CacheDir:  cache,
					MaxMemory: limit,
					Shard:     shard,
				}
				if sharded {
					return runShard(c, dst, plan, src, opts, out)
				}
				res, err := experiment.Run(c.Context, plan, opts)
				if err != nil {
					return err
				}
				if err := writeRun(dst, res, nil, report.Options{HTML: c.Bool("html")}); err != nil {
					return err
				}
				return printRun(c, res, out)
			})
		})
}

// runShard runs the share opts.Shard of the plan's units and writes their
// partial results into dst (partial.json), for covpipe merge.
func runShard(c *cli.Context, dst *store.Folder, plan *experiment.Plan, src experiment.Source, opts experiment.Options, out string) error {
	p, err := experiment.RunPartial(c.Context, plan, src, opts)
	if err != nil {
		return err
	}
	b, err := p.Encode()
	if err != nil {
		return err
	}
	if err := dst.WriteFile(experiment.PartialFile, b); err != nil {
		return err
	}
	if err := dst.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "shard %s: %d of the run's %s in %.1f s; partial results in %s (join the shards with covpipe merge --out DIR SHARD_DIR...)\n",
		p.Shard, len(p.Records)+wholeTasks(p), plural.Of(p.Units, "unit"), p.Seconds, filepath.Join(out, experiment.PartialFile))
	return nil
}

// wholeTasks counts the whole tasks a shard ran.
func wholeTasks(p *experiment.Partial) int {
	n := 0
	for _, t := range p.Tasks {
		if len(t.Results) > 0 {
			n++
		}
	}
	return n
}

// printRun prints the table of res, where its results are, and its notes
// and warnings.
func printRun(c *cli.Context, res *results.Results, out string) error {
	fmt.Fprintf(c.App.Writer, "%s\nwall time %.1f s; results in %s\n",
		report.Tables(res), res.Seconds, filepath.Join(out, results.FileName))
	notes := report.Notes(res)
	for i, n := range notes {
		if i == maxNotes {
			fmt.Fprintf(c.App.Writer, "note: %d more in %s\n", len(notes)-i, filepath.Join(out, report.SummaryFile))
			break
		}
		fmt.Fprintf(c.App.Writer, "note: %s\n", n)
	}
	for _, w := range report.Warnings(res) {
		fmt.Fprintf(c.App.Writer, "warning: %s\n", w)
	}
	return nil
}

// writeRun writes a run's output set into f and commits it: results.json
// (resultsJSON, else res encoded), summary.md, the figures and, as o
// asks, report.html.
func writeRun(f *store.Folder, res *results.Results, resultsJSON []byte, o report.Options) error {
	if resultsJSON != nil {
		if err := f.WriteFile(results.FileName, resultsJSON); err != nil {
			return err
		}
	} else {
		// Written as encoded: the document of a run with per-item scores
		// is tens of megabytes, which the run need not hold at its end.
		p, err := f.Create(results.FileName)
		if err != nil {
			return err
		}
		if err := res.EncodeTo(p); err != nil {
			return err
		}
	}
	if err := report.Write(f, res, o); err != nil {
		return err
	}
	return f.Commit()
}

// folderName returns the name of a run's default output folder, out/NAME,
// from the config's name: its letters, digits, '.', '_' and '-', each
// run of other characters (such as the '/' of a name that would climb
// out of out/) made one '-'. It returns an error for a name left empty,
// "." or "..".
func folderName(name string) (string, error) {
	var b strings.Builder
	dash := false
	for _, r := range name {
		if r < 128 && (r == '.' || r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	switch s := b.String(); s {
	case "", ".", "..", "-":
		return "", fmt.Errorf("it gives %q", s)
	default:
		return s, nil
	}
}

// writeHeapProfile writes the heap profile to path, after a collection so
// that it is up to date.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// maxNotes bounds the protocol notes printed after the table (a mosaic
// protocol has three per mosaic); summary.md has them all.
const maxNotes = 12

// dataRoot resolves the data root: the flag value if set, else
// $COVPIPE_DATA, else ./data.
func dataRoot(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv("COVPIPE_DATA"); env != "" {
		return env
	}
	return "data"
}

// cacheDir resolves the descriptor cache: the flag, else $COVPIPE_CACHE,
// else covpipe/ in the user's cache folder, else .covpipe-cache.
func cacheDir(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv("COVPIPE_CACHE"); env != "" {
		return env
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "covpipe")
	}
	return ".covpipe-cache"
}

func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
