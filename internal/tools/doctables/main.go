// Command doctables makes the tables of covpipe's documentation from
// committed extracts of covpipe runs and committed benchmark output, and
// checks that the docs agree with them.
//
// The manifest (docs/runs/runs.yaml) lists runs (a shipped config, covpipe
// run's flags and overrides that make a named variant of it) and tables
// (which cells of which runs or benchmark files, in which layout). Each run
// keeps an extract, docs/runs/ID.json: the config as run and aggregate
// scores. Tables sit in docs/*.md and README.md between the markers
//
//	<!-- table:NAME -->
//	...
//	<!-- /table -->
//
// and numbers in prose between <!-- value run=ID task=T method=M -->
// and <!-- /value -->. The reference blocks of docs/cli.md and
// docs/experiments.md, between <!-- generated:NAME --> and
// <!-- /generated -->, are what `go run ./cmd/covpipe help-markdown`
// prints: each command's usage, description and flags, the task kinds
// and the method types with their parameters (generated.go).
//
// The manifest is strict YAML (an unknown key is an error):
//
//	runs:
//	  - id: feret-sym                      # extract docs/runs/feret-sym.json
//	    config: configs/feret.yaml         # a shipped config
//	    quick: false                       # covpipe run's --quick
//	    methods: [rsr, nn-stein]           # --methods
//	    repeats: 0                         # --repeats (0: the config's)
//	    seed: 2                            # --seed (absent: the config's)
//	    data: true                         # the config reads --data
//	    overrides:                         # applied in order
//	      - {set: data.gabor_border, value: symmetric}
//	      - {delete: methods.rsr.lambda_ratio}
//	      - {set: methods.rsr.lambda, value: 0.1}
//	      - {add: methods, value: {name: nn-airm, type: nn, metric: airm}}
//	tables:
//	  - name: feret-border                 # the marker's NAME
//	    corner: variant                    # header of the label column
//	    missing: "–"                       # for results a run does not have
//	    task: average                      # cell fields for every cell
//	    columns:
//	      - {header: RSR, method: rsr}
//	      - {header: paper, ref: ["89.88", ""]}    # one text per row
//	    rows:
//	      - {label: shipped, run: feret-quick}
//	      - {label: symmetric border, run: feret-sym}
//
// A path names mapping keys and list elements (by their name key, or
// index). A cell merges the table's fields, its column's and its row's
// (the column and the row must not disagree), then the row's cells entry
// for that column header, if any, on top. What a cell shows follows from
// its fields: text; an accuracy (run, task, method); rank (CMC); iter
// (energy J); mean_of (the mean over tasks); param (the values chosen);
// value: best, seconds, unconverged or degenerate; or bench (a file of
// docs/runs/bench), benchmark, sub, cpu, unit (default ns/op), stat
// (range, median or min) and no_unit. decimals, std_decimals, no_std and
// bold format it. See Cell for the details.
//
// Usage, from the repository root:
//
//	go run ./internal/tools/doctables run [ID...] [--bin covpipe] [--data DIR] [--cache DIR] [--force]
//	go run ./internal/tools/doctables import ID RESULTS.json
//	go run ./internal/tools/doctables config ID
//	go run ./internal/tools/doctables list
//	go run ./internal/tools/doctables render
//	go run ./internal/tools/doctables check
//
// run runs the listed runs (all by default), skipping those whose extract
// exists unless --force, and writes their extracts; import makes a run's
// extract from a results.json made with the run's config and flags; config
// prints a run's config with its overrides applied; list shows each run and
// the state of its extract; render rewrites every generated table, value
// and block; check exits 1, naming each table, value or block that
// rendering would change and showing the difference, each block of
// help-markdown that no doc holds, or each extract that is missing or was
// made from another config.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "doctables:", err)
		os.Exit(1)
	}
}

const usage = `usage: go run ./internal/tools/doctables COMMAND [flags]

commands:
  run [ID...] [--bin covpipe] [--data DIR] [--cache DIR] [--force]   run runs, write their extracts
  import ID RESULTS.json                                            make run ID's extract from a results.json
  config ID                                                         print run ID's config, overrides applied
  list                                                              list the runs and their extracts
  render                                                            rewrite the generated tables and blocks in the docs
  check                                                             fail when a doc or extract is out of date

flags of every command: --root DIR (the repository; default: found from the
working folder), --manifest FILE (default: docs/runs/runs.yaml)`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cmd := args[0]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "repository root")
	manifest := fs.String("manifest", "", "manifest file")
	bin := fs.String("bin", "covpipe", "covpipe binary (run)")
	data := fs.String("data", "", "data root (run; default $COVPIPE_DATA, else "+DataPlaceholder+" from the root)")
	cache := fs.String("cache", "", "descriptor cache folder passed to covpipe (run)")
	force := fs.Bool("force", false, "rerun runs that have an extract (run)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if *root == "" {
		if *root, err = findRoot(); err != nil {
			return err
		}
	}
	if *manifest == "" {
		*manifest = filepath.Join(*root, "docs", "runs", "runs.yaml")
	}
	m, err := LoadManifest(*manifest)
	if err != nil {
		return err
	}
	switch cmd {
	case "run":
		if *data == "" {
			*data = os.Getenv("COVPIPE_DATA")
		}
		if *data == "" {
			*data = filepath.Join(*root, DataPlaceholder)
		}
		return runRuns(*root, m, pos, runOptions{bin: *bin, data: *data, cache: *cache, force: *force, log: stderr})
	case "import":
		r, err := namedRun(m, pos, 2, "import: want ID RESULTS.json")
		if err != nil {
			return err
		}
		e, err := NewExtract(*root, r, pos[1])
		if err != nil {
			return err
		}
		path := ExtractPath(*root, r.ID)
		if err := e.Write(path); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", r.ID, rel(*root, path))
		return nil
	case "config":
		r, err := namedRun(m, pos, 1, "config: want ID")
		if err != nil {
			return err
		}
		b, err := r.Variant(*root)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	case "list":
		return list(*root, m, stdout)
	case "render", "check":
		if len(pos) != 0 {
			return fmt.Errorf("%s takes no arguments", cmd)
		}
		st := newStore(*root, m)
		texts, diffs, err := st.renderAll()
		if err != nil {
			return err
		}
		if cmd == "render" {
			for f, text := range texts {
				if err := writeIfChanged(f, text); err != nil {
					return err
				}
			}
			return nil
		}
		problems := append(diffs, staleExtracts(*root, m)...)
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(stderr, p)
			}
			return fmt.Errorf("docs out of date: %d problem(s); run `%s render` (after rerunning the stale extracts named above, if any), which rewrites every table and every generated block", len(problems), toolCommand)
		}
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

// namedRun returns the run that the first of a command's arguments pos
// names, after checking that there are n of them (usage says which).
func namedRun(m *Manifest, pos []string, n int, usage string) (*Run, error) {
	if len(pos) != n {
		return nil, errors.New(usage)
	}
	return m.Run(pos[0])
}

// parseInterleaved parses flags that may stand before, between or after
// the positional arguments, and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	return pos, nil
}

// findRoot returns the nearest folder at or above the working folder that
// holds go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod at or above the working folder: give --root")
		}
		dir = up
	}
}

func writeIfChanged(path, text string) error {
	b, err := os.ReadFile(path)
	if err == nil && string(b) == text {
		return nil
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// staleExtracts names the extracts made from a config other than the one
// their run now gives (a shipped config or the run's overrides changed).
func staleExtracts(root string, m *Manifest) []string {
	var out []string
	for _, r := range m.Runs {
		e, err := ReadExtract(ExtractPath(root, r.ID))
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				out = append(out, err.Error())
			}
			continue // tables that need it say so
		}
		d, err := e.stale(root, r)
		switch {
		case err != nil:
			out = append(out, err.Error())
		case d != "":
			out = append(out, fmt.Sprintf("extract of run %s is stale: %s (rerun: %s run %s --force)", r.ID, d, toolCommand, r.ID))
		}
	}
	return out
}

func list(root string, m *Manifest, w io.Writer) error {
	for _, r := range m.Runs {
		state := "ok"
		e, err := ReadExtract(ExtractPath(root, r.ID))
		switch {
		case errors.Is(err, os.ErrNotExist):
			state = "no extract"
		case err != nil:
			return err
		default:
			d, err := e.stale(root, r)
			if err != nil {
				return err
			}
			if d != "" {
				state = "stale: " + d
			}
		}
		fmt.Fprintf(w, "%-28s %-12s %s\n", r.ID, state, r.Command())
	}
	return nil
}

type runOptions struct {
	bin, data, cache string
	force            bool
	log              io.Writer
}

// runRuns runs the runs ids (all when empty) with covpipe and writes their
// extracts.
func runRuns(root string, m *Manifest, ids []string, o runOptions) error {
	runs := m.Runs
	if len(ids) > 0 {
		runs = nil
		for _, id := range ids {
			r, err := m.Run(id)
			if err != nil {
				return err
			}
			runs = append(runs, r)
		}
	}
	data, err := filepath.Abs(o.data)
	if err != nil {
		return err
	}
	for _, r := range runs {
		path := ExtractPath(root, r.ID)
		if _, err := os.Stat(path); err == nil && !o.force {
			fmt.Fprintf(o.log, "%s: extract exists, skipped (--force reruns it)\n", r.ID)
			continue
		}
		if err := runOne(root, r, data, o, path); err != nil {
			return err
		}
	}
	return nil
}

func runOne(root string, r *Run, data string, o runOptions, path string) error {
	variant, err := r.Variant(root)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "doctables-"+r.ID+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cfg := filepath.Join(tmp, filepath.Base(r.Config))
	if err := os.WriteFile(cfg, variant, 0o644); err != nil {
		return err
	}
	out := filepath.Join(tmp, "out")
	args := append([]string{"run", cfg, "--out", out}, r.Args(data)...)
	if o.cache != "" {
		args = append(args, "--cache", o.cache)
	}
	fmt.Fprintf(o.log, "%s: %s %s\n", r.ID, o.bin, strings.Join(args, " "))
	cmd := exec.Command(o.bin, args...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = o.log, o.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("run %s: %s: %w", r.ID, o.bin, err)
	}
	e, err := NewExtract(root, r, filepath.Join(out, "results.json"))
	if err != nil {
		return err
	}
	if err := e.Write(path); err != nil {
		return err
	}
	fmt.Fprintf(o.log, "%s: %s\n", r.ID, rel(root, path))
	return nil
}
