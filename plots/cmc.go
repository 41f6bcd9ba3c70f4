package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CMC writes a cumulative matching characteristic plot to path, as in
// Fig. 6 of Harandi et al. (ECCV 2012): for each series, the recognition
// rate in percent (Y[r-1], the share of queries whose true match is among
// the r best-ranked gallery items) against the rank r = 1, …, len(Y),
// drawn as a line with markers. A series with Err gets a translucent
// Y ± Err band, clipped to [0, 100]. The vertical axis runs from a little
// below the lowest value (or band) to 100 %. The legend sits between the
// title and the plot, never over the curves. The format follows the
// extension of path (.png, .svg or .pdf).
//
// CMC returns an error, and writes nothing, when the extension is not
// supported, there are no series, a series is empty or has an Err of
// another length, or a value is NaN, outside [0, 100] (rates must be in
// percent, not fractions), or an Err is negative or not finite.
func CMC(path, title string, series []Series) error {
	return save(path, "CMC plot", func(w io.Writer) error { return CMCTo(w, path, title, series) })
}

// CMCTo is CMC writing the figure to w, in the format of the extension
// of name, the figure's file name, which its errors give. It writes
// nothing when it returns an error about its input.
func CMCTo(w io.Writer, name, title string, series []Series) error {
	form, err := format(name)
	if err == nil {
		err = checkCMC(series)
	}
	if err != nil {
		return fmt.Errorf("CMC plot %s: %w", name, err)
	}

	p := newPlot("Rank", "Recognition rate (%)")
	p.Add(&plotter.Grid{Vertical: gridStyle(), Horizontal: gridStyle()})
	f := &figure{title: title, plot: p}

	ranks, lo := 0, 100.0
	for _, s := range series {
		ranks = max(ranks, len(s.Y))
		for i, y := range s.Y {
			lo = math.Min(lo, math.Max(0, y-s.errAt(i)))
		}
	}

	// Bands go first so that no curve is hidden under another's band.
	bands := make([]*plotter.Polygon, len(series))
	for i, s := range series {
		if len(s.Err) == 0 {
			continue
		}
		ring := make(plotter.XYs, 0, 2*len(s.Y))
		for j, y := range s.Y {
			ring = append(ring, plotter.XY{X: float64(j + 1), Y: math.Min(100, y+s.Err[j])})
		}
		for j := len(s.Y) - 1; j >= 0; j-- {
			ring = append(ring, plotter.XY{X: float64(j + 1), Y: math.Max(0, s.Y[j]-s.Err[j])})
		}
		band, err := plotter.NewPolygon(ring)
		if err != nil {
			return fmt.Errorf("CMC plot %s: series %d (%q): %w", name, i, s.Name, err)
		}
		c := styleOf(i).color
		band.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 0x38}
		band.LineStyle = draw.LineStyle{}
		p.Add(band)
		bands[i] = band
	}

	// Markers on every rank would merge into a thick line on long curves;
	// there they go on the labelled ranks only.
	markStep := 1
	if ranks > 20 {
		markStep = rankStep(ranks)
	}
	for i, s := range series {
		xys := make(plotter.XYs, len(s.Y))
		for j, y := range s.Y {
			xys[j] = plotter.XY{X: float64(j + 1), Y: y}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("CMC plot %s: series %d (%q): %w", name, i, s.Name, err)
		}
		marks, err := plotter.NewScatter(markedRanks(xys, markStep))
		if err != nil {
			return fmt.Errorf("CMC plot %s: series %d (%q): %w", name, i, s.Name, err)
		}
		styleOf(i).curve(line, marks, vg.Points(4.5))
		p.Add(line, marks)
		if s.Name != "" {
			thumbs := []plot.Thumbnailer{line, marks}
			if bands[i] != nil {
				thumbs = append([]plot.Thumbnailer{bands[i]}, thumbs...)
			}
			f.legend = append(f.legend, legendEntry{name: s.Name, thumbs: thumbs})
		}
	}

	p.X.Min, p.X.Max = 1, float64(ranks)
	if ranks == 1 {
		p.X.Min, p.X.Max = 0.5, 1.5
	}
	p.X.Tick.Marker = rankTicks(ranks)
	p.Y.Min, p.Y.Max = cmcFloor(lo), 100
	if err := f.write(w, form); err != nil {
		return fmt.Errorf("CMC plot %s: %w", name, err)
	}
	return nil
}

func checkCMC(series []Series) error {
	if err := checkSeries(series, -1); err != nil {
		return err
	}
	for i, s := range series {
		for j, y := range s.Y {
			if y < 0 || y > 100 {
				return fmt.Errorf("series %d (%q): Y[%d] = %v is not a percentage in [0, 100]", i, s.Name, j, y)
			}
		}
	}
	return nil
}

// cmcFloor returns the bottom of the rate axis for a lowest value lo in
// [0, 100]: a multiple of 5 at least max(2, 5 % of the span) below lo, so
// the lowest marker does not sit on the axis, and never below 0.
func cmcFloor(lo float64) float64 {
	gap := math.Max(2, 0.05*(100-lo))
	return math.Max(0, 5*math.Floor((lo-gap)/5))
}

// rankStep returns the spacing of labelled ranks on a rank axis 1…n:
// 1 up to 15 ranks, beyond that the first of 2, 5, 10, 20, 50, … that
// leaves at most 10 multiples in n.
func rankStep(n int) int {
	if n <= 15 {
		return 1
	}
	step := 1
	for k := 0; n/step > 10; k++ {
		step = [3]int{2, 5, 10}[k%3] * int(math.Pow10(k/3))
	}
	return step
}

// rankTicks returns the ticks of a rank axis 1…n: labels at rank 1 and at
// the multiples of rankStep(n), unlabelled minor ticks at the other ranks
// while they are not too dense.
func rankTicks(n int) plot.ConstantTicks {
	step := rankStep(n)
	var ticks plot.ConstantTicks
	for r := 1; r <= n; r++ {
		switch {
		case r == 1 || r%step == 0:
			ticks = append(ticks, plot.Tick{Value: float64(r), Label: strconv.Itoa(r)})
		case n <= 60:
			ticks = append(ticks, plot.Tick{Value: float64(r)})
		}
	}
	return ticks
}

// markedRanks returns the points of xys (ranks 1, 2, …) at rank 1 and at
// the multiples of step.
func markedRanks(xys plotter.XYs, step int) plotter.XYs {
	var marked plotter.XYs
	for i, xy := range xys {
		if r := i + 1; r == 1 || r%step == 0 {
			marked = append(marked, xy)
		}
	}
	return marked
}
