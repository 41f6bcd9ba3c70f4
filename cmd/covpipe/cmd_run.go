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
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile to `FILE` (for go tool pprof)"},
			&cli.StringFlag{Name: "memprofile", Usage: "write a heap profile of all allocations to `FILE` when the run ends (go tool pprof -sample_index=alloc_space)"},
		},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return argsError(c, "exactly one CONFIG file")
			}
			plan, err := experiment.Load(c.Args().First())
			if err != nil {
				return err
			}
			log := newLogger(c.App.ErrWriter)
			for _, w := range plan.Warnings() {
				log.Warn(w, "config", c.Args().First())
			}
			cfg := plan.Config
			if c.Bool("quick") {
				if err := plan.Quick(); err != nil {
					return err
				}
			}
			if c.IsSet("methods") {
				if err := plan.KeepMethods(strings.Split(c.String("methods"), ",")); err != nil {
					return fmt.Errorf("run: --methods: %w", err)
				}
			}
			if c.IsSet("repeats") {
				if c.Int("repeats") < 1 {
					return fmt.Errorf("run: --repeats %d, want >= 1", c.Int("repeats"))
				}
				cfg.Repeats = c.Int("repeats")
			}
			if c.IsSet("seed") {
				cfg.Seed = c.Uint64("seed")
			}
			if c.IsSet("workers") {
				if cfg.Workers, err = workersFlag(c); err != nil {
					return err
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
				out = filepath.Join("out", name)
			}
			// The output folder is taken before anything is computed.
			return intoFolder(c, out, store.FormatRun, func(dst *store.Folder) error {
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
				res, err := experiment.Run(c.Context, plan, experiment.Options{
					Reporter:  newReporter(c.Context, c.App.ErrWriter, log),
					Logger:    log,
					DataRoot:  dataRoot(c.String("data")),
					CacheDir:  cache,
					MaxMemory: limit,
				})
				if err != nil {
					return err
				}
				if err := writeRun(dst, res, nil); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%s\nwall time %.1f s; results in %s\n",
					report.Tables(res), res.Seconds, filepath.Join(out, experiment.ResultsFile))
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
			})
		})
}

// writeRun writes a run's output set into f and commits it: results.json
// (resultsJSON, else res encoded), summary.md and the figures.
func writeRun(f *store.Folder, res *experiment.Results, resultsJSON []byte) error {
	if resultsJSON == nil {
		var err error
		if resultsJSON, err = res.Encode(); err != nil {
			return err
		}
	}
	if err := f.WriteFile(experiment.ResultsFile, resultsJSON); err != nil {
		return err
	}
	if err := report.Write(f, res); err != nil {
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
