package plots

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Lines writes a line plot to path: each series' Y[i] against x = x0 + i,
// with markers, as the energy-against-iteration curves of the paper's
// Fig. 7 (x0 = 0, the initial dictionary). Unlike CMC the vertical axis
// spans the data, whatever their units. The format follows the extension
// of path (.png, .svg or .pdf). It returns an error, and writes nothing,
// for an unsupported extension, no series, an empty series, a non-finite
// value or a negative or non-finite Err.
func Lines(path, title, xlabel, ylabel string, x0 float64, series []Series) error {
	return save(path, "line plot", func(w io.Writer) error { return LinesTo(w, path, title, xlabel, ylabel, x0, series) })
}

// LinesTo is Lines writing the figure to w, in the format of the
// extension of name, the figure's file name, which its errors give. It
// writes nothing when it returns an error about its input.
func LinesTo(w io.Writer, name, title, xlabel, ylabel string, x0 float64, series []Series) error {
	form, err := format(name)
	if err == nil {
		err = checkSeries(series, -1)
	}
	if err != nil {
		return fmt.Errorf("line plot %s: %w", name, err)
	}
	p := newPlot(xlabel, ylabel)
	p.Add(&plotter.Grid{Vertical: gridStyle(), Horizontal: gridStyle()})
	f := &figure{title: title, plot: p}
	for i, s := range series {
		xys := make(plotter.XYs, len(s.Y))
		for j, y := range s.Y {
			xys[j] = plotter.XY{X: x0 + float64(j), Y: y}
		}
		line, marks, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("line plot %s: series %d (%q): %w", name, i, s.Name, err)
		}
		styleOf(i).curve(line, marks, vg.Points(3.5))
		p.Add(line, marks)
		if s.Name != "" {
			f.legend = append(f.legend, legendEntry{name: s.Name, thumbs: []plot.Thumbnailer{line, marks}})
		}
	}
	if err := f.write(w, form); err != nil {
		return fmt.Errorf("line plot %s: %w", name, err)
	}
	return nil
}
