package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Confusion is a confusion matrix: Counts[i][j] items of the true class
// Rows[i] were given the class Cols[j].
type Confusion struct {
	Title string
	Rows  []string
	Cols  []string
	// Counts has a row per Rows, each with a count per Cols.
	Counts [][]int
}

// Largest matrices whose cells and class names the figure writes: past
// them the cells are too small to read and only their shading is drawn.
const (
	maxCellCounts = 25 // classes along the wider side
	maxClassNames = 60
)

// ConfusionMatrix writes a confusion matrix to path as a heat map: true
// classes down, the first at the top, given classes across, each cell
// shaded by its share of its row (the recall of the class on the
// diagonal), white for none to dark blue for all, with its count written
// in it and the cells of the true class outlined when the matrix has at
// most 25 classes along its wider side, and the class names along the
// axes when at most 60. The format follows the
// extension of path (.png, .svg or .pdf).
//
// It returns an error, and writes nothing, when the extension is not
// supported, a side has no classes, Counts does not have a row per Rows
// each of a count per Cols, or a count is negative.
func ConfusionMatrix(path string, m Confusion) error {
	return save(path, "confusion matrix", func(w io.Writer) error { return ConfusionMatrixTo(w, path, m) })
}

// ConfusionMatrixTo is ConfusionMatrix writing the figure to w, in the
// format of the extension of name, the figure's file name, which its
// errors give. It writes nothing when it returns an error about its
// input.
func ConfusionMatrixTo(w io.Writer, name string, m Confusion) error {
	form, err := format(name)
	if err == nil {
		err = checkConfusion(m)
	}
	if err != nil {
		return fmt.Errorf("confusion matrix %s: %w", name, err)
	}
	p := newPlot(fmt.Sprintf("Given class (%d)", len(m.Cols)), fmt.Sprintf("True class (%d)", len(m.Rows)))
	names := len(m.Rows) <= maxClassNames && len(m.Cols) <= maxClassNames
	if names {
		p.NominalX(m.Cols...)
		// NominalY puts the first name at the bottom: the rows go up.
		up := make([]string, len(m.Rows))
		for i, r := range m.Rows {
			up[len(m.Rows)-1-i] = r
		}
		p.NominalY(up...)
	} else {
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks{}, plot.ConstantTicks{}
	}
	p.X.Min, p.X.Max = -0.5, float64(len(m.Cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(m.Rows))-0.5
	p.X.Padding, p.Y.Padding = 0, 0
	p.Add(&cells{m: m, counts: max(len(m.Rows), len(m.Cols)) <= maxCellCounts})
	if err := (&figure{title: m.Title, plot: p}).write(w, form); err != nil {
		return fmt.Errorf("confusion matrix %s: %w", name, err)
	}
	return nil
}

func checkConfusion(m Confusion) error {
	if len(m.Rows) == 0 || len(m.Cols) == 0 {
		return errors.New("no classes")
	}
	if len(m.Counts) != len(m.Rows) {
		return fmt.Errorf("%d rows of counts for %d true classes", len(m.Counts), len(m.Rows))
	}
	for i, row := range m.Counts {
		if len(row) != len(m.Cols) {
			return fmt.Errorf("row %d (%q) has %d counts for %d classes", i, m.Rows[i], len(row), len(m.Cols))
		}
		for j, n := range row {
			if n < 0 {
				return fmt.Errorf("count %d of row %q, class %q", n, m.Rows[i], m.Cols[j])
			}
		}
	}
	return nil
}

// cells draws the cells of a confusion matrix: cell (i, j) centred at
// x = j, y = len(Rows) − 1 − i.
type cells struct {
	m      Confusion
	counts bool // write each cell's count
}

// cellColour is the shade of a cell holding the share f of its row:
// white for 0 to dark blue for 1, linearly.
func cellColour(f float64) color.RGBA {
	mix := func(a, b uint8) uint8 { return uint8(float64(a) + f*(float64(b)-float64(a)) + 0.5) }
	return color.RGBA{R: mix(0xff, 0x08), G: mix(0xff, 0x30), B: mix(0xff, 0x6b), A: 0xff}
}

// Plot implements plot.Plotter.
func (cs *cells) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	n := len(cs.m.Rows)
	sty := text.Style{Font: sansFont(tickSize), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
	for i, row := range cs.m.Counts {
		total := 0
		for _, v := range row {
			total += v
		}
		y := float64(n - 1 - i)
		for j, v := range row {
			f := 0.0
			if total > 0 {
				f = float64(v) / float64(total)
			}
			x := float64(j)
			r := vg.Rectangle{Min: vg.Point{X: trX(x - 0.5), Y: trY(y - 0.5)}, Max: vg.Point{X: trX(x + 0.5), Y: trY(y + 0.5)}}
			pts := []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}}
			c.FillPolygon(cellColour(f), c.ClipPolygonXY(pts))
			if cs.counts && v > 0 {
				sty.Color = color.Black
				if f > 0.5 {
					sty.Color = color.White
				}
				c.FillText(sty, vg.Point{X: trX(x), Y: trY(y)}, strconv.Itoa(v))
			}
		}
	}
	if !cs.counts {
		return
	}
	// The diagonal's cells outlined, where the given class is the true
	// one (too thin to see in a matrix too large for counts).
	edge := draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(0.8)}
	for i, name := range cs.m.Rows {
		for j, col := range cs.m.Cols {
			if col != name {
				continue
			}
			x, y := float64(j), float64(n-1-i)
			pts := []vg.Point{{X: trX(x - 0.5), Y: trY(y - 0.5)}, {X: trX(x - 0.5), Y: trY(y + 0.5)}, {X: trX(x + 0.5), Y: trY(y + 0.5)}, {X: trX(x + 0.5), Y: trY(y - 0.5)}}
			c.StrokeLines(edge, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

// DataRange implements plot.DataRanger.
func (cs *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(len(cs.m.Cols)) - 0.5, -0.5, float64(len(cs.m.Rows)) - 0.5
}
