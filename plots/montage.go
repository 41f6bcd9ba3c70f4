package plots

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Tile is one image of a montage with the lines of its caption.
type Tile struct {
	Image   image.Image
	Caption []string
}

// Montage layout, in points: each tile's image is fitted into a square
// of tileSide, above its caption.
const (
	tileSide     = 96
	tileGap      = 12
	montageCols  = 6
	captionSize  = 9
	captionLines = 3
)

// Montage writes the tiles to path in rows of up to six under the
// title, each image scaled to fit a square of 96 pt (128 px in a PNG)
// keeping its aspect, above up to three lines of caption, each shortened
// with "…" to the tile's width. The format follows the extension of path
// (.png, .svg or .pdf).
//
// It returns an error, and writes nothing, when the extension is not
// supported, there are no tiles, or a tile has no image or an empty one.
func Montage(path, title string, tiles []Tile) error {
	return save(path, "montage", func(w io.Writer) error { return MontageTo(w, path, title, tiles) })
}

// MontageTo is Montage writing the figure to w, in the format of the
// extension of name, the figure's file name, which its errors give. It
// writes nothing when it returns an error about its input.
func MontageTo(w io.Writer, name, title string, tiles []Tile) error {
	form, err := format(name)
	if err == nil {
		err = checkTiles(tiles)
	}
	if err != nil {
		return fmt.Errorf("montage %s: %w", name, err)
	}
	cols := min(len(tiles), montageCols)
	rows := (len(tiles) + cols - 1) / cols
	titleSty := text.Style{Color: color.Black, Font: sansFont(titleSize), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	capSty := text.Style{Color: color.Black, Font: sansFont(captionSize), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	lineH := capSty.Height("Mg")
	cellW, cellH := vg.Length(tileSide+tileGap), tileSide+captionLines*lineH+tileGap
	head := vg.Length(0)
	if title != "" {
		head = titleSty.Height(title) + sectionGap
	}
	width := max(vg.Length(cols)*cellW, titleSty.Width(title)) + 2*margin
	height := vg.Length(rows)*cellH + head + 2*margin
	cw := newCanvasSized(form, width, height)
	c := draw.New(cw)
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	top := c.Max.Y - margin
	if title != "" {
		c.FillText(titleSty, vg.Point{X: c.Center().X, Y: top}, title)
		top -= head
	}
	left := c.Center().X - vg.Length(cols)*cellW/2
	for k, t := range tiles {
		x0 := left + vg.Length(k%cols)*cellW + tileGap/2
		y0 := top - vg.Length(k/cols)*cellH
		b := t.Image.Bounds()
		s := tileSide / max(vg.Length(b.Dx()), vg.Length(b.Dy()))
		iw, ih := vg.Length(b.Dx())*s, vg.Length(b.Dy())*s
		im := vg.Rectangle{Min: vg.Point{X: x0 + (tileSide-iw)/2, Y: y0 - tileSide + (tileSide-ih)/2}}
		im.Max = vg.Point{X: im.Min.X + iw, Y: im.Min.Y + ih}
		c.DrawImage(im, t.Image)
		for i, line := range t.Caption[:min(len(t.Caption), captionLines)] {
			c.FillText(capSty, vg.Point{X: x0 + tileSide/2, Y: y0 - tileSide - 2 - vg.Length(i)*lineH}, fitText(capSty, line, tileSide+tileGap-2))
		}
	}
	if _, err := cw.WriteTo(w); err != nil {
		return fmt.Errorf("montage %s: %w", name, err)
	}
	return nil
}

// fitText returns s, shortened with "…" to at most width in sty.
func fitText(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && sty.Width(string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

func checkTiles(tiles []Tile) error {
	if len(tiles) == 0 {
		return errors.New("no tiles")
	}
	for i, t := range tiles {
		if t.Image == nil || t.Image.Bounds().Empty() {
			return fmt.Errorf("tile %d has no image", i)
		}
	}
	return nil
}
