package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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

// addCurve adds series i of the figure's plot, named name: its line
// through xys, with a marker on every step-th point, in the series'
// style, and its legend entry.
func (f *figure) addCurve(i int, name string, xys plotter.XYs, step int) error {
	line, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("series %d (%q): %w", i, name, err)
	}
	var marked plotter.XYs
	for j := 0; j < len(xys); j += step {
		marked = append(marked, xys[j])
	}
	marks, err := plotter.NewScatter(marked)
	if err != nil {
		return fmt.Errorf("series %d (%q): %w", i, name, err)
	}
	styleOf(i).curve(line, marks, vg.Points(3.5))
	f.plot.Add(line, marks)
	if name != "" {
		f.legend = append(f.legend, legendEntry{name: name, thumbs: []plot.Thumbnailer{line, marks}})
	}
	return nil
}

// ROC writes receiver operating characteristic curves to path: each
// series' true accept rates Y[i] (%) against the false accept rates far[i]
// (%), which every series shares, on axes from 0 to 100 with the diagonal
// of chance (a threshold that ignores the data) dashed: the open-set
// rejection of unknown classes. The format follows the extension of path
// (.png, .svg or .pdf). It returns an error, and writes nothing, for an
// unsupported extension, no series, a series without one value per false
// accept rate, false accept rates that are not ascending within [0, 100],
// and a value that is not in [0, 100].
func ROC(path, title string, far []float64, series []Series) error {
	return save(path, "ROC plot", func(w io.Writer) error { return ROCTo(w, path, title, far, series) })
}

// ROCTo is ROC writing the figure to w, in the format of the extension of
// name, the figure's file name, which its errors give. It writes nothing
// when it returns an error about its input.
func ROCTo(w io.Writer, name, title string, far []float64, series []Series) error {
	form, err := format(name)
	if err == nil {
		err = checkROC(far, series)
	}
	if err != nil {
		return fmt.Errorf("ROC plot %s: %w", name, err)
	}
	p := newPlot("False accept rate of unknown items (%)", "True accept rate of known items (%)")
	p.Add(&plotter.Grid{Vertical: gridStyle(), Horizontal: gridStyle()})
	chance, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 100, Y: 100}})
	if err != nil {
		return fmt.Errorf("ROC plot %s: %w", name, err)
	}
	chance.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x99}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	p.Add(chance)
	f := &figure{title: title, plot: p}
	for i, s := range series {
		xys := make(plotter.XYs, len(s.Y))
		for j, y := range s.Y {
			xys[j] = plotter.XY{X: far[j], Y: y}
		}
		// Markers every tenth of the grid, so that they stay apart.
		if err := f.addCurve(i, s.Name, xys, max(1, len(far)/10)); err != nil {
			return fmt.Errorf("ROC plot %s: %w", name, err)
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 0, 100
	p.X.Tick.Marker = valueTicks{}
	if err := f.write(w, form); err != nil {
		return fmt.Errorf("ROC plot %s: %w", name, err)
	}
	return nil
}

func checkROC(far []float64, series []Series) error {
	if len(far) == 0 {
		return fmt.Errorf("no false accept rates")
	}
	for i, x := range far {
		if !(x >= 0 && x <= 100) || i > 0 && !(x > far[i-1]) {
			return fmt.Errorf("false accept rate %d is %v: want ascending rates in [0, 100]", i, x)
		}
	}
	if err := checkSeries(series, len(far)); err != nil {
		return err
	}
	for i, s := range series {
		for j, y := range s.Y {
			if !(y >= 0 && y <= 100) {
				return fmt.Errorf("series %d (%q): true accept rate %v at %v%%, want a rate in [0, 100]", i, s.Name, y, far[j])
			}
		}
	}
	return nil
}
