package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/htmlreport"
	"github.com/covpipe/covpipe/plots"
)

// figures draws the figures r's config asks for, as PNG files named as
// in a run's folder.
func figures(r *results.Results) ([]htmlreport.Figure, error) {
	if r.Config == nil {
		return nil, nil
	}
	switch r.Config.Plot {
	case config.PlotCMC:
		return perTask(layoutOf(r.Results, results.KindAccuracy), "cmc",
			func(x results.Result) plots.Series { return plots.Series{Name: x.Method, Y: x.CMC, Err: x.CMCStd} },
			func(w io.Writer, name, task string, series []plots.Series) error {
				return plots.CMCTo(w, name, fmt.Sprintf("%s: %s (mean over %d repeats)", r.Name, task, r.Repeats), series)
			})
	case config.PlotBars:
		return barChart(r)
	case config.PlotROC:
		return rocFigures(r)
	case config.PlotEnergy:
		return perTask(layoutOf(r.Results, results.KindEnergy), "energy",
			func(x results.Result) plots.Series { return plots.Series{Name: x.Method, Y: x.Energy} },
			func(w io.Writer, name, task string, series []plots.Series) error {
				title := fmt.Sprintf("%s: %s, representation energy J (Eqn. 10), mean over %d repeats", r.Name, task, r.Repeats)
				return plots.LinesTo(w, name, title, "Iteration", "J", 0, markOffAxis(series))
			})
	}
	return nil, nil
}

// markOffAxis marks OffAxis each flat series (a reference line, such as
// the energy of the true sources) whose value lies farther from the range
// of the series that are not flat than twice that range's span: on one
// axis with them it would squash their curves, so the plot gives its
// value in the legend instead.
func markOffAxis(series []plots.Series) []plots.Series {
	flat := func(s plots.Series) bool { return slices.Min(s.Y) == slices.Max(s.Y) }
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if !flat(s) {
			lo, hi = min(lo, slices.Min(s.Y)), max(hi, slices.Max(s.Y))
		}
	}
	span := hi - lo
	if !(span > 0) {
		return series
	}
	for i, s := range series {
		if v := s.Y[0]; flat(s) && (v > hi+2*span || v < lo-2*span) {
			series[i].OffAxis = true
		}
	}
	return series
}

// perTask draws one figure per task of l, named prefix-TASK.png, with the
// non-empty series that get makes of each method's result; tasks without
// any are left out.
func perTask(l layout, prefix string, get func(results.Result) plots.Series,
	draw func(w io.Writer, name, task string, series []plots.Series) error) ([]htmlreport.Figure, error) {
	var figs []htmlreport.Figure
	for _, t := range l.tasks {
		var series []plots.Series
		for _, m := range l.methods {
			if x, ok := l.cell[[2]string{t, m}]; ok {
				if s := get(x); len(s.Y) > 0 {
					series = append(series, s)
				}
			}
		}
		if len(series) == 0 {
			continue
		}
		name := prefix + "-" + fileSafe(t) + ".png"
		var b bytes.Buffer
		if err := draw(&b, name, t, series); err != nil {
			return nil, fmt.Errorf("task %q: %w", t, err)
		}
		figs = append(figs, htmlreport.Figure{Name: name, PNG: b.Bytes()})
	}
	return figs, nil
}

// barChart draws accuracy.png: the accuracy of every method on every
// task, with standard deviations, as the paper's Fig. 4.
func barChart(r *results.Results) ([]htmlreport.Figure, error) {
	l := layoutOf(r.Results, results.KindAccuracy)
	b := plots.Bars{Title: fmt.Sprintf("%s: accuracy (mean ± std over %d repeats)", r.Name, r.Repeats), YLabel: "Recognition accuracy (%)", Groups: l.tasks}
	for _, m := range l.methods {
		s := plots.Series{Name: m}
		for _, t := range l.tasks {
			x := l.cell[[2]string{t, m}]
			s.Y = append(s.Y, x.AccuracyMean)
			s.Err = append(s.Err, x.AccuracyStd)
		}
		b.Series = append(b.Series, s)
	}
	var w bytes.Buffer
	if err := plots.BarChartTo(&w, "accuracy.png", b); err != nil {
		return nil, err // plots names the figure
	}
	return []htmlreport.Figure{{Name: "accuracy.png", PNG: w.Bytes()}}, nil
}

// fileSafe replaces the characters of a task name that file systems
// refuse or that separate paths.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

// rocFigures draws roc-TASK.png for each open-set task of r: the mean ROC
// over repeats of every method.
func rocFigures(r *results.Results) ([]htmlreport.Figure, error) {
	l := layoutOf(r.Results, results.KindOpenSet)
	far := map[string][]float64{}
	for _, x := range l.results {
		far[x.Task] = x.ROCFAR
	}
	return perTask(l, "roc",
		func(x results.Result) plots.Series {
			if x.ROC == nil {
				return plots.Series{}
			}
			return plots.Series{Name: x.Method, Y: x.ROC.Mean}
		},
		func(w io.Writer, name, task string, series []plots.Series) error {
			title := fmt.Sprintf("%s: %s, known against unknown classes (mean over %d repeats)", r.Name, task, r.Repeats)
			return plots.ROCTo(w, name, title, far[task], series)
		})
}
