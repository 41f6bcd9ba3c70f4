// Package report renders what an experiment run measured, a
// results.Results, for people: the Markdown tables of the terminal and
// of summary.md, laid out like the tables of Harandi, Sanderson, Hartley
// and Lovell (ECCV 2012), the notes and warnings that go with them, and
// the figure the experiment's plot setting asks for (package plots). It
// computes no new numbers, so that `covpipe report` redraws everything
// from a results.json alone.
package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/store"
)

// SummaryFile is the name of summary.md in a run's folder.
const SummaryFile = "summary.md"

// Write writes summary.md (Summary, with a section listing the figures)
// and the figure of r's config (Figures) into f, the output set of a
// run's folder (of store.FormatRun) that the caller commits with r's
// results.json. It returns an error when a file cannot be written, or
// when the results cannot be drawn (a figure's values not finite, say).
func Write(f *store.Folder, r *results.Results) error {
	figs, err := writeFigures(f, r)
	if err != nil {
		return err
	}
	return f.WriteFile(SummaryFile, []byte(summary(r, figs)))
}

// Summary renders summary.md without its figures: the tables of results
// (AccuracyTable, EnergyTable) and how they were made, the series of each
// task (CMC and energy curves), the parameters cross-validation chose, run
// times, and notes and warnings.
func Summary(r *results.Results) string { return summary(r, nil) }

func summary(r *results.Results, figs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Name)
	if r.Config != nil && r.Config.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(r.Config.Description))
	}
	acc, energy := layoutOf(r.Results, results.KindAccuracy), layoutOf(r.Results, results.KindEnergy)
	if len(acc.tasks) > 0 {
		fmt.Fprintf(&b, "Recognition accuracy in %% (mean ± sample standard deviation over %d repeats). "+
			"Run time: seconds spent in each method (kernel matrices, sparse coding, classification), "+
			"summed over tasks and repeats, on %d worker(s).\n\n", r.Repeats, r.Workers)
		b.WriteString(acc.table(accuracyCell))
	}
	if len(energy.tasks) > 0 {
		if len(acc.tasks) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Representation energy J (Eqn. 10) of each method's dictionary after the last iteration "+
			"(mean ± sample standard deviation over %d repeats). "+
			"Run time: seconds spent in each method (dictionary learning and sparse coding), "+
			"summed over tasks and repeats, on %d worker(s).\n\n", r.Repeats, r.Workers)
		b.WriteString(energy.table(energyCell))
	}
	if t := OpenSetTable(r); t != "" {
		if len(acc.tasks)+len(energy.tasks) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Open-set rejection of unknown classes (mean ± sample standard deviation over %d repeats): "+
			"test items of classes held out of training are unknowns, and an answer is accepted when its confidence "+
			"(the sparsity concentration index for SRC methods, the score otherwise) reaches a threshold. "+
			"AUC: area under the ROC of known against unknown items; TAR: known items accepted; identified: known items "+
			"accepted and labelled right; threshold: the mean confidence threshold at that false accept rate (FAR); "+
			"accuracy: known items labelled right without rejection (%%).\n\n", r.Repeats)
		b.WriteString(t)
	}
	for _, t := range acc.tasks {
		acc.seriesTable(&b, t, "rank", 1,
			"cumulative matching characteristic\n\nRecognition rate in % at rank r (mean ± std over repeats).",
			func(x results.Result) ([]float64, []float64) { return x.CMC, x.CMCStd }, "%.2f ± %.1f")
	}
	for _, t := range energy.tasks {
		energy.seriesTable(&b, t, "iteration", 0,
			"representation energy\n\nJ of Eqn. 10 after each iteration (0: the initial dictionary), mean ± std over repeats; the energy table above gives the last.",
			func(x results.Result) ([]float64, []float64) { return x.Energy, x.EnergyStd }, "%.5g ± %.2g")
	}
	if ps := paramSummary(r); ps != "" {
		b.WriteString("\n## Parameters\n\n" + ps)
	}
	if len(figs) > 0 {
		b.WriteString("\n## Figures\n\n")
		for _, f := range figs {
			fmt.Fprintf(&b, "![%s](%s)\n", f, f)
		}
	}
	fmt.Fprintf(&b, "\nWall time %.1f s on %d cores; seed %d; covpipe %s; started %s.",
		r.Seconds, r.Cores, r.Seed, r.Version, r.Started.Format(time.RFC3339))
	if len(r.Timings) > 0 {
		var parts []string
		for _, k := range []string{"data", "extraction", "pairwise", "methods"} {
			if v, ok := r.Timings[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f s", k, v))
			}
		}
		fmt.Fprintf(&b, " Stages: %s.", strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	if notes := noteLines(r); len(notes) > 0 {
		b.WriteString("\nNotes:\n\n" + strings.Join(notes, "\n") + "\n")
	}
	return b.String()
}
