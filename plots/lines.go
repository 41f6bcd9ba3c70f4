package plots

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Lines writes a line plot to path: each series' Y[i] against x = x0 + i,
// with markers, as the energy-against-iteration curves of the paper's
// Fig. 7 (x0 = 0, the initial dictionary). Unlike CMC the vertical axis
// spans the data, whatever their units, but for series marked OffAxis,
// which are not drawn: their legend entries give their values ("sources
// (J = 312.6, off the axis)", with ylabel naming the quantity). The
// format follows the extension of path (.png, .svg or .pdf). It returns
// an error, and writes nothing, for an unsupported extension, no series,
// every series off the axis, an empty series, a non-finite value or a
// negative or non-finite Err.
func Lines(path, title, xlabel, ylabel string, x0 float64, series []Series) error {
	return save(path, "line plot", func(w io.Writer) error { return LinesTo(w, path, title, xlabel, ylabel, x0, series) })
}

// LinesTo is Lines writing the figure to w, in the format of the
// extension of name, the figure's file name, which its errors give. It
// writes nothing when it returns an error about its input.
func LinesTo(w io.Writer, name, title, xlabel, ylabel string, x0 float64, series []Series) error {
	form, err := format(name)
	if err == nil {
		var f *figure
		if f, err = linesFigure(title, xlabel, ylabel, x0, series); err == nil {
			err = f.write(w, form)
		}
	}
	if err != nil {
		return fmt.Errorf("line plot %s: %w", name, err)
	}
	return nil
}

// linesFigure makes the figure of Lines.
func linesFigure(title, xlabel, ylabel string, x0 float64, series []Series) (*figure, error) {
	if err := checkSeries(series, -1); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(series, func(s Series) bool { return !s.OffAxis }) {
		return nil, errors.New("every series is off the axis")
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
			return nil, fmt.Errorf("series %d (%q): %w", i, s.Name, err)
		}
		styleOf(i).curve(line, marks, vg.Points(3.5))
		label := s.Name
		if s.OffAxis {
			label = offAxisLabel(s, ylabel)
		} else {
			p.Add(line, marks)
		}
		if label != "" {
			f.legend = append(f.legend, legendEntry{name: label, thumbs: []plot.Thumbnailer{line, marks}})
		}
	}
	return f, nil
}

// offAxisLabel is the legend entry of a series left off the axis: its
// name and its value, or the range of its values, as quantity = value.
func offAxisLabel(s Series, quantity string) string {
	lo, hi := slices.Min(s.Y), slices.Max(s.Y)
	value := fmt.Sprintf("%.4g", lo)
	if hi != lo {
		value = fmt.Sprintf("%.4g to %.4g", lo, hi)
	}
	if quantity != "" {
		value = quantity + " = " + value
	}
	return strings.TrimSpace(s.Name + " (" + value + ", off the axis)")
}
