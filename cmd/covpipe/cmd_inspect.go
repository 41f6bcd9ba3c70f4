package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/model"
	"github.com/urfave/cli/v2"
)

func inspectCommand() *cli.Command {
	return command("inspect", "MODEL", "print what a model that covpipe fit saved holds",
		nil,
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return argsError(c, "exactly one MODEL folder")
			}
			dir := c.Args().First()
			m, err := model.Load(dir)
			if err != nil {
				return fmt.Errorf("inspect: %w", err)
			}
			return writeInspection(c.App.Writer, dir, m.Info())
		})
}

// writeInspection writes what the model of the folder dir holds, info:
// its format and covpipe version, method, parameters as resolved and as
// chosen, classes with their training items, extraction options, fusion,
// and the cross-validation tables of its fit.
func writeInspection(w io.Writer, dir string, info model.Info) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	row("model", "%s (format %s)", dir, model.Format)
	row("fitted by", "covpipe %s", info.Version)
	row("method", "%s", info.Method)
	if len(info.Params) > 0 {
		row("parameters", "%s", anyParams(info.Params))
	}
	for _, c := range info.Candidates {
		mark := ""
		if c.Name == info.ChosenMethod {
			mark = " (chosen)"
		}
		row("candidate", "%s: %s %s%s", c.Name, c.Method, anyParams(c.Params), mark)
	}
	row("chosen", "%s", params(info.Chosen))
	if info.FoldsBy.Key != "" {
		row("cross-validation", "%s (%s), seed %d", plural.Of(info.Folds, "fold"), info.FoldsBy, info.Seed)
	} else {
		row("cross-validation", "%s, seed %d", plural.Of(info.Folds, "fold"), info.Seed)
	}
	if info.Atoms > 0 {
		row("atoms", "%d", info.Atoms)
	}
	row("classes", "%s", classCounts(info.Classes, info.Counts))
	for _, note := range info.Notes {
		row("note", "%s", note)
	}
	row("training items", "%d, descriptors %dx%d", info.Trained, info.Dim, info.Dim)
	if e := info.Extraction; e != nil {
		for i, s := range e.Settings() {
			k := ""
			if i == 0 {
				k = "extraction"
			}
			row(k, "%s %s", s.Field, s.Value)
		}
		var ins []string
		for _, in := range e.Inputs {
			ins = append(ins, fmt.Sprintf("%s (%s)", in.Root, plural.Of(in.Images, "image")))
		}
		row("trained on", "%s", strings.Join(ins, ", "))
	} else {
		row("extraction", "none recorded (fitted on descriptors without their options: it answers descriptors only)")
	}
	if v := info.Vectors; v != nil {
		row("vectors", "features %s, step %d", v.FeatureSpec, v.Step)
	}
	if p := info.Parts; p != nil {
		row("fusion", "%s fused by %s, weights %.3g", plural.Of(len(p.Regions), "region"), p.Rule, p.Weights)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(info.CV) == 0 {
		_, err := fmt.Fprintln(w, "no choice by cross-validation (one candidate of everything)")
		return err
	}
	return writeCVTables(w, info.CV)
}

// shownClasses is the number of classes inspect names; past it, it
// names the first ones.
const shownClasses = 12

// classCounts says the classes and the training items of each, counts:
// every class with its count for a few, the first ones and the range of
// counts for many.
func classCounts(classes []string, counts []int) string {
	var names []string
	for k, name := range classes[:min(len(classes), shownClasses)] {
		names = append(names, fmt.Sprintf("%s (%d)", name, counts[k]))
	}
	out := plural.Of(len(classes), "class") + ": " + strings.Join(names, ", ")
	if len(classes) <= shownClasses {
		return out
	}
	lo, hi := slices.Min(counts), slices.Max(counts)
	each := fmt.Sprintf("%d to %d", lo, hi)
	if lo == hi {
		each = strconv.Itoa(lo)
	}
	return fmt.Sprintf("%s, ... (%s training items each)", out, each)
}

// anyParams formats parameters as a config gives them, "k=v k=v" sorted,
// lists as comma-separated values.
func anyParams(p map[string]any) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		v := p[k]
		s := fmt.Sprint(v)
		switch x := v.(type) {
		case []any:
			var vs []string
			for _, e := range x {
				vs = append(vs, fmt.Sprint(e))
			}
			s = strings.Join(vs, ",")
		case nil:
			s = "default"
		case map[string]any:
			b, _ := json.Marshal(x)
			s = string(b)
		}
		out = append(out, k+"="+s)
	}
	return strings.Join(out, " ")
}

// writeCVTables writes the cross-validation tables of a fit: per table
// what was chosen and where, a row per candidate with its accuracy (%)
// on each fold and its mean ± standard error, the chosen row marked *,
// and the rule that chose it.
func writeCVTables(w io.Writer, tables []classify.CVTable) error {
	for _, t := range tables {
		head := "cross-validation of the " + t.Choice
		if t.Scope != "" {
			head += " (" + t.Scope + ")"
		}
		folds := 0
		if len(t.Candidates) > 0 {
			folds = len(t.Candidates[0].Folds)
		}
		fmt.Fprintf(w, "\n%s: %s of %s\n", head, plural.Of(folds, "fold"), plural.Of(t.Items, "training item"))
		width := len("candidate")
		for _, r := range t.Candidates {
			width = max(width, len(r.Name))
		}
		// Numbers right-aligned; names padded to the left of theirs.
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "\t%-*s\t", width, "candidate")
		for k := range folds {
			fmt.Fprintf(tw, "fold %d\t", k+1)
		}
		fmt.Fprint(tw, "mean\t± SE\t\n")
		for i, r := range t.Candidates {
			mark := ""
			if i == t.Chosen {
				mark = "*"
			}
			fmt.Fprintf(tw, "%s\t%-*s\t", mark, width, r.Name)
			for _, a := range r.Folds {
				fmt.Fprintf(tw, "%.1f\t", a)
			}
			fmt.Fprintf(tw, "%.1f\t± %.1f\t\n", r.Mean, r.SE)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		chosen := ""
		if t.Chosen >= 0 && t.Chosen < len(t.Candidates) {
			chosen = t.Candidates[t.Chosen].Name
		}
		if _, err := fmt.Fprintf(w, "chosen: %s, by %s\n", chosen, t.Why); err != nil {
			return err
		}
	}
	return nil
}
