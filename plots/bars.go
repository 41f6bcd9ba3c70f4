package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bars describes a grouped bar chart such as Fig. 4 of Harandi et al.
// (ECCV 2012): average recognition accuracy per Brodatz test scenario
// ("5c", "5m", …, "16v") for each method, with standard deviations.
type Bars struct {
	// Title is drawn above the chart; it may be empty.
	Title string
	// YLabel labels the value axis, e.g. "Recognition accuracy (%)".
	YLabel string
	// XLabel labels the group axis; it may be empty.
	XLabel string
	// Groups names the groups along the horizontal axis.
	Groups []string
	// Series holds one bar per group for each series: Y[i] is the value
	// for Groups[i] and Err[i], if Err is not empty, its standard
	// deviation, drawn as a black error bar from Y[i]-Err[i] to Y[i]+Err[i].
	Series []Series
}

// groupWidth is the fraction of the space between neighbouring groups
// that a group's bars fill; the rest separates the groups.
const groupWidth = 0.8

// BarChart writes a grouped bar chart to path: for each group one bar per
// series, side by side, each with a black ± Err error bar. The value axis
// always includes zero so that bar lengths stay comparable. The format
// follows the extension of path (.png, .svg or .pdf).
//
// BarChart returns an error, and writes nothing, when the extension is not
// supported, there are no groups or no series, a series does not have one
// value per group or an Err of the same length, or a value is NaN or
// infinite or an Err negative.
func BarChart(path string, b Bars) error {
	return save(path, "bar chart", func(w io.Writer) error { return BarChartTo(w, path, b) })
}

// BarChartTo is BarChart writing the figure to w, in the format of the
// extension of name, the figure's file name, which its errors give. It
// writes nothing when it returns an error about its input.
func BarChartTo(dst io.Writer, name string, b Bars) error {
	form, err := format(name)
	if err == nil {
		err = checkBars(b)
	}
	if err != nil {
		return fmt.Errorf("bar chart %s: %w", name, err)
	}

	p := newPlot(b.XLabel, b.YLabel)
	p.NominalX(b.Groups...)
	p.X.Padding = 0 // bars stand on the axis
	// Horizontal grid lines only: vertical ones would cut through groups.
	p.Add(&plotter.Grid{Horizontal: gridStyle()})

	f := &figure{title: b.Title, plot: p}
	w := groupWidth / float64(len(b.Series))
	for i, s := range b.Series {
		bs := &barSeries{
			Series: s,
			style:  styleOf(i),
			offset: (float64(i) - float64(len(b.Series)-1)/2) * w,
			width:  w,
		}
		p.Add(bs)
		if s.Name != "" {
			f.legend = append(f.legend, legendEntry{name: s.Name, thumbs: []plot.Thumbnailer{bs}})
		}
	}

	lo, hi := 0.0, 0.0
	for _, s := range b.Series {
		for i, y := range s.Y {
			lo = math.Min(lo, y-s.errAt(i))
			hi = math.Max(hi, y+s.errAt(i))
		}
	}
	if lo == hi {
		hi = 1
	}
	pad := 0.05 * (hi - lo)
	p.X.Min, p.X.Max = -0.5, float64(len(b.Groups))-0.5
	p.Y.Min, p.Y.Max = lo, hi+pad
	if lo < 0 {
		p.Y.Min = lo - pad
		// Negative bars hang from a zero line that the axis no longer marks.
		zero, err := plotter.NewLine(plotter.XYs{{X: p.X.Min}, {X: p.X.Max}})
		if err != nil {
			return fmt.Errorf("bar chart %s: %w", name, err)
		}
		zero.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		p.Add(zero)
	}
	if err := f.write(dst, form); err != nil {
		return fmt.Errorf("bar chart %s: %w", name, err)
	}
	return nil
}

func checkBars(b Bars) error {
	if len(b.Groups) == 0 {
		return errors.New("no groups")
	}
	return checkSeries(b.Series, len(b.Groups))
}

// barSeries draws the bars of one series: bar i is centred at
// x = i + offset and is width wide, in data units of the group axis.
type barSeries struct {
	Series
	style         seriesStyle
	offset, width float64
}

const hatchSpacing = 5 // points

// Plot implements plot.Plotter.
func (s *barSeries) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	errBar := draw.LineStyle{Color: color.Black, Width: vg.Points(1.4)}
	for i, y := range s.Y {
		x := float64(i) + s.offset
		left, right := trX(x-s.width/2), trX(x+s.width/2)
		s.drawBar(&c, vg.Rectangle{
			Min: vg.Point{X: left, Y: min(trY(0), trY(y))},
			Max: vg.Point{X: right, Y: max(trY(0), trY(y))},
		})
		if e := s.errAt(i); e > 0 {
			xc := trX(x)
			lo, hi := trY(y-e), trY(y+e)
			capW := min(vg.Points(10), (right-left)*0.6) / 2
			c.StrokeLine2(errBar, xc, lo, xc, hi)
			c.StrokeLine2(errBar, xc-capW, lo, xc+capW, lo)
			c.StrokeLine2(errBar, xc-capW, hi, xc+capW, hi)
		}
	}
}

// drawBar fills r with the series colour and hatch and outlines it.
func (s *barSeries) drawBar(c *draw.Canvas, r vg.Rectangle) {
	pts := []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}}
	c.FillPolygon(s.style.color, c.ClipPolygonXY(pts))
	// The hatch contrasts with the fill: white on dark, black on light.
	hs := draw.LineStyle{Color: color.Gray{Y: 0x20}, Width: vg.Points(0.7)}
	if luminance(s.style.color) < 110 {
		hs.Color = color.White
	}
	for _, seg := range s.style.hatch.segments(r, hatchSpacing) {
		c.StrokeLines(hs, c.ClipLinesXY(seg[:])...)
	}
	outline := draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
	c.StrokeLines(outline, c.ClipLinesXY(append(pts, pts[0]))...)
}

// DataRange implements plot.DataRanger.
func (s *barSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = s.offset-s.width/2, float64(len(s.Y)-1)+s.offset+s.width/2
	for i, y := range s.Y {
		e := s.errAt(i)
		ymin, ymax = math.Min(ymin, y-e), math.Max(ymax, y+e)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer: a small swatch of the bar fill.
func (s *barSeries) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	side := min(c.Max.X-c.Min.X, h*1.1)
	x := c.Center().X - side/2
	s.drawBar(c, vg.Rectangle{
		Min: vg.Point{X: x, Y: c.Min.Y - 0.05*h},
		Max: vg.Point{X: x + side, Y: c.Max.Y + 0.05*h},
	})
}
