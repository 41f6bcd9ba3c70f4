// Package plots draws the report figures of the covpipe experiments with
// gonum.org/v1/plot: cumulative matching characteristic (CMC) curves, as in
// Fig. 6 of Harandi et al., "Sparse Coding and Dictionary Learning for
// Symmetric Positive Definite Matrices: A Kernel Approach", ECCV 2012, and
// grouped bar charts with standard-deviation error bars, as in its Fig. 4,
// line plots such as the energy curves of its Fig. 7, and, for the
// evaluation of a model, confusion matrices and montages of images with
// captions.
//
// The package takes plain slices and imports nothing else from covpipe;
// package experiment/report draws an experiment's figures with it.
//
// Figures are 800×600 pixels when written as PNG (600×450 pt for SVG and
// PDF, the same physical size at 96 dpi). The format follows the file
// extension: .png, .svg or .pdf. CMC, BarChart, Lines, ConfusionMatrix
// and Montage write a file atomically, complete or not at all; CMCTo,
// BarChartTo, LinesTo, ConfusionMatrixTo and MontageTo write to a writer,
// such as a file of an output set (package store). A montage's size
// follows its number of tiles.
package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/covpipe/covpipe/internal/atomicfile"
)

// Series is one method's results: a curve for CMC, or one bar per group
// for BarChart.
type Series struct {
	// Name labels the series in the legend. Series with an empty name get
	// no legend entry.
	Name string
	// Y holds the values.
	Y []float64
	// Err, if not empty, holds one non-negative half-width per value of Y:
	// a ± band around a CMC curve, or a ± error bar on a bar (typically
	// the standard deviation over repetitions).
	Err []float64
	// OffAxis, in a line plot (Lines), leaves the series out of the plot
	// area and gives its values in its legend entry instead: a reference
	// so far from the other series that, on one axis with them, it would
	// squash their curves into a sliver.
	OffAxis bool
}

// Figure size: 800×600 pixels at 96 dpi, which is 600×450 pt.
const (
	widthPx  = 800
	heightPx = 600
	dpi      = 96
	figW     = widthPx * vg.Inch / dpi
	figH     = heightPx * vg.Inch / dpi
)

// Font sizes in points. At 96 dpi 12 pt is 16 px, readable at full size.
const (
	titleSize  = 16
	labelSize  = 14
	tickSize   = 12
	legendSize = 13
)

// format returns the output format for path, from its extension.
func format(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".png", ".svg", ".pdf":
		return ext[1:], nil
	}
	return "", fmt.Errorf("unsupported file extension %q (want .png, .svg or .pdf)", filepath.Ext(path))
}

// newCanvas returns an empty figure canvas for a format accepted by format.
func newCanvas(format string) vg.CanvasWriterTo { return newCanvasSized(format, figW, figH) }

// newCanvasSized returns an empty canvas of w×h for a format accepted by
// format, at the figures' resolution.
func newCanvasSized(format string, w, h vg.Length) vg.CanvasWriterTo {
	switch format {
	case "svg":
		return vgsvg.New(w, h)
	case "pdf":
		return vgpdf.New(w, h)
	default:
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
	}
}

// checkSeries reports the first problem with series: none at all, an
// empty or non-finite Y, an Err of the wrong length, negative or
// non-finite. If n >= 0 every series must have exactly n values.
func checkSeries(series []Series, n int) error {
	if len(series) == 0 {
		return errors.New("no series to plot")
	}
	for i, s := range series {
		switch {
		case len(s.Y) == 0:
			return fmt.Errorf("series %d (%q) has no values", i, s.Name)
		case n >= 0 && len(s.Y) != n:
			return fmt.Errorf("series %d (%q) has %d values, want %d (one per group)", i, s.Name, len(s.Y), n)
		case len(s.Err) != 0 && len(s.Err) != len(s.Y):
			return fmt.Errorf("series %d (%q): Err has %d values, Y has %d", i, s.Name, len(s.Err), len(s.Y))
		}
		for j, y := range s.Y {
			if math.IsNaN(y) || math.IsInf(y, 0) {
				return fmt.Errorf("series %d (%q): Y[%d] is %v", i, s.Name, j, y)
			}
		}
		for j, e := range s.Err {
			if math.IsNaN(e) || math.IsInf(e, 0) || e < 0 {
				return fmt.Errorf("series %d (%q): Err[%d] is %v, want a finite value >= 0", i, s.Name, j, e)
			}
		}
	}
	return nil
}

// errAt returns s.Err[i], or 0 when s has no error values.
func (s Series) errAt(i int) float64 {
	if len(s.Err) == 0 {
		return 0
	}
	return s.Err[i]
}

// seriesStyle is how series i is drawn. Colours differ in luminance as
// well as hue, and each series also has its own marker, dash pattern and
// hatch, so that the figures stay readable when printed in greyscale.
type seriesStyle struct {
	color  color.RGBA
	glyph  draw.GlyphDrawer
	dashes []vg.Length
	hatch  hatch
}

// styleOf returns the style of the i-th series; styles repeat after eight.
func styleOf(i int) seriesStyle {
	colors := [...]color.RGBA{
		{0x1b, 0x3f, 0x7a, 0xff}, // dark blue
		{0xe8, 0x91, 0x2d, 0xff}, // orange
		{0x2e, 0x9d, 0x4e, 0xff}, // green
		{0xc4, 0x34, 0x2d, 0xff}, // red
		{0x9e, 0x86, 0xc8, 0xff}, // lilac
		{0x6b, 0x42, 0x26, 0xff}, // brown
		{0x17, 0xa9, 0xba, 0xff}, // teal
		{0x55, 0x55, 0x55, 0xff}, // grey
	}
	glyphs := [...]draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{},
		draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
	}
	dashes := [...][]vg.Length{
		nil,
		{vg.Points(7), vg.Points(3)},
		{vg.Points(2), vg.Points(2.5)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	}
	hatches := [...]hatch{hatchNone, hatchDiagUp, hatchDiagDown, hatchCross, hatchHoriz, hatchVert, hatchNone, hatchDiagUp}
	k := i % len(colors)
	return seriesStyle{
		color:  colors[k],
		glyph:  glyphs[k],
		dashes: dashes[i%len(dashes)],
		hatch:  hatches[k],
	}
}

// curve draws a series' line and its markers, of the given radius, in
// style st.
func (st seriesStyle) curve(line *plotter.Line, marks *plotter.Scatter, radius vg.Length) {
	line.LineStyle = draw.LineStyle{Color: st.color, Width: vg.Points(2), Dashes: st.dashes}
	marks.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: radius, Shape: st.glyph}
}

// luminance is the Rec. 601 luma of c in [0, 255], the grey level a
// greyscale printer gives it.
func luminance(c color.RGBA) float64 {
	return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B)
}

// sansFont returns Liberation Sans at size points. It is always of normal
// weight: gonum/plot v0.17's PDF backend registers fonts without their
// style and then fails to find a bold one ("undefined font").
func sansFont(size vg.Length) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size)
}

// newPlot returns a plot with the package's fonts and axis labels.
func newPlot(xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sansFont(labelSize)
		a.Tick.Label.Font = sansFont(tickSize)
		a.Label.Padding = vg.Points(4)
		a.Tick.Length = vg.Points(5)
	}
	p.Y.Tick.Marker = valueTicks{}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	return p
}

// gridStyle is light enough not to compete with the data.
func gridStyle() draw.LineStyle {
	return draw.LineStyle{Color: color.Gray{Y: 0xd8}, Width: vg.Points(0.6)}
}

// legendEntry is one item of the legend: a label and the thumbnails drawn
// on top of each other to its left.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// figure is a plot with a title and a legend drawn outside the data area,
// between the title and the plot, so that the legend never hides data.
type figure struct {
	title  string
	plot   *plot.Plot
	legend []legendEntry
}

// Layout constants of the figure frame, in points.
const (
	margin       = 10 // around the whole figure
	thumbW       = 26 // legend thumbnail width
	thumbGap     = 6  // between thumbnail and label
	entryGap     = 22 // between legend entries on one row
	rowGap       = 4  // between legend rows
	sectionGap   = 8  // between title, legend and plot
	rightPadding = 8  // keeps the last x tick label inside the figure
)

// draw renders f onto c.
func (f *figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin-rightPadding, margin, -margin)

	if f.title != "" {
		sty := text.Style{
			Color:   color.Black,
			Font:    sansFont(titleSize),
			XAlign:  draw.XCenter,
			YAlign:  draw.YTop,
			Handler: plot.DefaultTextHandler,
		}
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, f.title)
		c.Max.Y -= sty.Height(f.title) + sectionGap
	}
	if len(f.legend) > 0 {
		c.Max.Y -= drawLegend(c, f.legend) + sectionGap
	}
	f.plot.Draw(c)
}

// drawLegend draws the entries in centred rows along the top of c,
// wrapping when a row is full, and returns the height used.
func drawLegend(c draw.Canvas, entries []legendEntry) vg.Length {
	sty := text.Style{
		Color:   color.Black,
		Font:    sansFont(legendSize),
		XAlign:  draw.XLeft,
		YAlign:  draw.YCenter,
		Handler: plot.DefaultTextHandler,
	}
	widths := make([]vg.Length, len(entries))
	for i, e := range entries {
		widths[i] = thumbW + thumbGap + sty.Width(e.name)
	}
	colW := legendColumns(widths, c.Size().X)
	gridW := vg.Length(len(colW)-1) * entryGap
	for _, w := range colW {
		gridW += w
	}

	h := sty.Height("Mg")
	rows := (len(entries) + len(colW) - 1) / len(colW)
	for i, e := range entries {
		row, col := i/len(colW), i%len(colW)
		x := c.Center().X - gridW/2
		for _, w := range colW[:col] {
			x += w + entryGap
		}
		y := c.Max.Y - h/2 - vg.Length(row)*(h+rowGap)
		thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y - h/2},
			Max: vg.Point{X: x + thumbW, Y: y + h/2},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&thumb)
		}
		c.FillText(sty, vg.Point{X: x + thumbW + thumbGap, Y: y}, e.name)
	}
	return vg.Length(rows)*(h+rowGap) - rowGap
}

// legendColumns returns the column widths of a legend whose entries have
// the given widths, in a space avail wide: one row of natural widths when
// it fits, otherwise as many equal columns as fit (at least one), so that
// the wrapped rows line up.
func legendColumns(widths []vg.Length, avail vg.Length) []vg.Length {
	total, widest := vg.Length(len(widths)-1)*entryGap, vg.Length(0)
	for _, w := range widths {
		total += w
		widest = max(widest, w)
	}
	if total <= avail {
		return widths
	}
	n := max(1, int((avail+entryGap)/(widest+entryGap)))
	cols := make([]vg.Length, n)
	for i := range cols {
		cols[i] = widest
	}
	return cols
}

// write renders f in the given format to w.
func (f *figure) write(w io.Writer, format string) error {
	cw := newCanvas(format)
	f.draw(draw.New(cw))
	_, err := cw.WriteTo(w)
	return err
}

// save writes the figure that render writes to path atomically; what
// names the kind of figure in the errors of the file system.
func save(path, what string, render func(w io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	defer f.Abort()
	if err := render(f); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return nil
}

// valueTicks places labelled ticks at multiples of a round step m·10^k,
// m ∈ {1, 2, 2.5, 5}, the smallest giving at most 8 intervals, with
// unlabelled minor ticks between them. gonum/plot's default gives only
// 2–3 labels on the short axes of these figures.
type valueTicks struct{}

// Ticks implements plot.Ticker.
func (valueTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step, minors := niceStep((hi - lo) / 8)
	prec := decimals(step)
	minor := step / float64(minors)
	var ticks []plot.Tick
	first := math.Ceil(lo/minor - 1e-9)
	for k := first; k*minor <= hi+1e-9*minor; k++ {
		v := k * minor
		if v == 0 {
			v = 0 // not -0, which would be labelled "-0"
		}
		if math.Mod(k, float64(minors)) != 0 {
			ticks = append(ticks, plot.Tick{Value: v})
			continue
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return ticks
}

// niceStep returns the smallest m·10^k ≥ x with m ∈ {1, 2, 2.5, 5} and
// the number of minor intervals that divide it into round parts.
func niceStep(x float64) (step float64, minors int) {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []struct {
		f float64
		n int
	}{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}} {
		if m.f*p >= x*(1-1e-12) {
			return m.f * p, m.n
		}
	}
	return 10 * p, 5
}

// decimals returns how many digits after the decimal point step needs.
func decimals(step float64) int {
	for p := 0; p < 15; p++ {
		s := step * math.Pow10(p)
		if math.Abs(s-math.Round(s)) <= 1e-9*s {
			return p
		}
	}
	return 15
}
