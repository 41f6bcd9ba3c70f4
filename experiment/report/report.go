// Package report renders what an experiment run measured, a
// results.Results, for people: the Markdown tables of the terminal and
// of summary.md, laid out like the tables of Harandi, Sanderson, Hartley
// and Lovell (ECCV 2012), the notes and warnings that go with them, the
// figure the experiment's plot setting asks for (package plots), and
// the same as one HTML page, report.html (package htmlreport). It
// computes no new numbers, so that `covpipe report` redraws everything
// from a results.json alone.
package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/htmlreport"
	"github.com/covpipe/covpipe/store"
)

// SummaryFile is the name of summary.md in a run's folder.
const SummaryFile = "summary.md"

// Options configure Write.
type Options struct {
	// HTML writes report.html (htmlreport.FileName) beside summary.md.
	HTML bool
}

// Write writes summary.md (Summary, with a section listing the figures)
// and the figure of r's config (Figures) into f, the output set of a
// run's folder (of store.FormatRun) that the caller commits with r's
// results.json, and with o.HTML report.html: summary.md's sections as
// one self-contained page (HTML), the figures inline. It returns an
// error when a file cannot be written, or when the results cannot be
// drawn (a figure's values not finite, say).
func Write(f *store.Folder, r *results.Results, o Options) error {
	figs, err := figures(r)
	if err != nil {
		return err
	}
	names := make([]string, len(figs))
	for i, fig := range figs {
		if err := f.WriteFile(fig.Name, fig.PNG); err != nil {
			return err
		}
		names[i] = fig.Name
	}
	if err := f.WriteFile(SummaryFile, []byte(summary(r, names))); err != nil {
		return err
	}
	if !o.HTML {
		return nil
	}
	var b bytes.Buffer
	if err := htmlreport.Render(&b, page(r, figs)); err != nil {
		return err
	}
	return f.WriteFile(htmlreport.FileName, b.Bytes())
}

// Summary renders summary.md without its figures: the tables of results
// (AccuracyTable, EnergyTable, OpenSetTable) and how they were made, the
// series of each task (CMC and energy curves), the parameters
// cross-validation chose, run times, and notes and warnings.
func Summary(r *results.Results) string { return summary(r, nil) }

// block is a part of a report: a title, the paragraph saying what its
// tables hold, and the tables. In summary.md untitled blocks come first,
// one after another, and titled ones follow, each under its title; in
// report.html every block is a section under its title.
type block struct {
	title  string
	titled bool
	text   string
	grids  []grid
}

// blocks are the parts of r's report: the tables of accuracies, energies
// and open-set rejection, then the series of each task.
func blocks(r *results.Results) []block {
	var bs []block
	acc, energy := layoutOf(r.Results, results.KindAccuracy), layoutOf(r.Results, results.KindEnergy)
	for _, k := range []struct {
		l                layout
		cell             func(results.Result) string
		key, title, text string
	}{
		{acc, accuracyCell, "accuracy", "Accuracy", fmt.Sprintf("Recognition accuracy in %% (mean ± sample standard deviation over %d repeats). "+
			"Run time: seconds spent in each method (kernel matrices, sparse coding, classification), "+
			"summed over tasks and repeats, on %d worker(s).", r.Repeats, r.Workers)},
		{energy, energyCell, "energy", "Representation energy", fmt.Sprintf("Representation energy J (Eqn. 10) of each method's dictionary after the last iteration "+
			"(mean ± sample standard deviation over %d repeats). "+
			"Run time: seconds spent in each method (dictionary learning and sparse coding), "+
			"summed over tasks and repeats, on %d worker(s).", r.Repeats, r.Workers)},
	} {
		if len(k.l.tasks) > 0 {
			g := k.l.grid(k.cell)
			g.key = k.key
			bs = append(bs, block{title: k.title, text: k.text, grids: []grid{g}})
		}
	}
	if gs := openSetGrids(r); len(gs) > 0 {
		bs = append(bs, block{title: "Open-set rejection", grids: gs,
			text: fmt.Sprintf("Open-set rejection of unknown classes (mean ± sample standard deviation over %d repeats): "+
				"test items of classes held out of training are unknowns, and an answer is accepted when its confidence "+
				"(the sparsity concentration index for SRC methods, the score otherwise) reaches a threshold. "+
				"AUC: area under the ROC of known against unknown items; TAR: known items accepted; identified: known items "+
				"accepted and labelled right; threshold: the mean confidence threshold at that false accept rate (FAR); "+
				"accuracy: known items labelled right without rejection (%%).", r.Repeats)})
	}
	curves := slices.Concat(acc.seriesGrids("cmc", "rank", 1, "cumulative matching characteristic",
		"Recognition rate in % at rank r (mean ± std over repeats).",
		func(x results.Result) ([]float64, []float64) { return x.CMC, x.CMCStd }, "%.2f ± %.1f"),
		energy.seriesGrids("energy-curve", "iteration", 0, "representation energy",
			"J of Eqn. 10 after each iteration (0: the initial dictionary), mean ± std over repeats; the energy table above gives the last.",
			func(x results.Result) ([]float64, []float64) { return x.Energy, x.EnergyStd }, "%.5g ± %.2g"))
	for _, s := range curves {
		bs = append(bs, block{title: s.title, titled: true, text: s.text, grids: []grid{s.grid}})
	}
	return bs
}

func summary(r *results.Results, figs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Name)
	if r.Config != nil && r.Config.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(r.Config.Description))
	}
	first := true
	for _, k := range blocks(r) {
		switch {
		case k.titled:
			fmt.Fprintf(&b, "\n## %s\n\n", k.title)
		case !first:
			b.WriteString("\n")
		}
		first = false
		fmt.Fprintf(&b, "%s\n\n%s", k.text, gridsMarkdown(k.grids))
	}
	if ps := paramLines(r); len(ps) > 0 {
		b.WriteString("\n## Parameters\n\n")
		for _, p := range ps {
			b.WriteString("- " + p + "\n")
		}
	}
	if len(figs) > 0 {
		b.WriteString("\n## Figures\n\n")
		for _, f := range figs {
			fmt.Fprintf(&b, "![%s](%s)\n", f, f)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", footer(r))
	if notes := noteLines(r); len(notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

// footer is the line saying how the run ran: wall time, cores, seed,
// version, start and the time of each stage.
func footer(r *results.Results) string {
	s := fmt.Sprintf("Wall time %.1f s on %d cores; seed %d; covpipe %s; started %s.",
		r.Seconds, r.Cores, r.Seed, r.Version, r.Started.Format(time.RFC3339))
	if len(r.Timings) > 0 {
		var parts []string
		for _, k := range []string{"data", "extraction", "pairwise", "methods"} {
			if v, ok := r.Timings[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f s", k, v))
			}
		}
		s += fmt.Sprintf(" Stages: %s.", strings.Join(parts, ", "))
	}
	return s
}
