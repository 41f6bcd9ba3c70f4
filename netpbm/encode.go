package netpbm

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
)

// EncodeOptions controls Encode. A nil *EncodeOptions is the zero value.
type EncodeOptions struct {
	// BitDepth is the sample size to write: 8 (maxval 255) or 16 (maxval
	// 65535). Zero chooses 16 for images whose colour model is 16-bit
	// (color.Gray16Model, RGBA64Model, NRGBA64Model, Alpha16Model) and 8
	// otherwise.
	BitDepth int
}

// Encode writes img to w as a raw PGM (P5) when its colour model is grey
// (color.GrayModel or color.Gray16Model) and as a raw PPM (P6) otherwise,
// with 8- or 16-bit samples as opts says.
//
// Alpha is discarded: the colour written is the non-premultiplied colour
// (color.NRGBA64Model's). Converting 16-bit samples u to 8 bits writes
// round(u*255/65535); 8-bit samples v become v*257 in 16 bits, so decoding
// gives back exactly the written values. Encode returns an error for an
// empty image, a bit depth other than 0, 8 or 16, or a failed write.
func Encode(w io.Writer, img image.Image, opts *EncodeOptions) error {
	var o EncodeOptions
	if opts != nil {
		o = *opts
	}
	b := img.Bounds()
	if b.Empty() {
		return errors.New("netpbm: cannot encode an empty image")
	}
	model := img.ColorModel()
	switch o.BitDepth {
	case 0:
		o.BitDepth = 8
		switch model {
		case color.Gray16Model, color.RGBA64Model, color.NRGBA64Model, color.Alpha16Model:
			o.BitDepth = 16
		}
	case 8, 16:
	default:
		return fmt.Errorf("netpbm: bit depth %d, want 8 or 16", o.BitDepth)
	}
	grey := model == color.GrayModel || model == color.Gray16Model
	magic, channels := '6', 3
	if grey {
		magic, channels = '5', 1
	}
	maxval, bytes := 255, 1
	if o.BitDepth == 16 {
		maxval, bytes = 65535, 2
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "P%c\n%d %d\n%d\n", magic, b.Dx(), b.Dy(), maxval)
	at := pixelFunc(img, grey)
	row := make([]byte, b.Dx()*channels*bytes)
	var s [3]uint16
	for y := b.Min.Y; y < b.Max.Y; y++ {
		j := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			s[0], s[1], s[2] = at(x, y)
			for _, v := range s[:channels] {
				if bytes == 2 {
					row[j], row[j+1] = byte(v>>8), byte(v)
				} else {
					row[j] = byte((uint32(v)*255 + 32767) / 65535)
				}
				j += bytes
			}
		}
		if _, err := bw.Write(row); err != nil {
			return fmt.Errorf("netpbm: encode: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("netpbm: encode: %w", err)
	}
	return nil
}

// pixelFunc returns a function giving the 16-bit non-premultiplied colour
// of img at (x, y); for grey images only the first value is used.
func pixelFunc(img image.Image, grey bool) func(x, y int) (r, g, b uint16) {
	switch m := img.(type) {
	case *image.Gray:
		return func(x, y int) (r, g, b uint16) {
			v := uint16(m.Pix[m.PixOffset(x, y)]) * 0x101
			return v, v, v
		}
	case *image.Gray16:
		return func(x, y int) (r, g, b uint16) {
			i := m.PixOffset(x, y)
			v := uint16(m.Pix[i])<<8 | uint16(m.Pix[i+1])
			return v, v, v
		}
	case *image.NRGBA:
		return func(x, y int) (r, g, b uint16) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint16(p[0]) * 0x101, uint16(p[1]) * 0x101, uint16(p[2]) * 0x101
		}
	case *image.NRGBA64:
		return func(x, y int) (r, g, b uint16) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint16(p[0])<<8 | uint16(p[1]), uint16(p[2])<<8 | uint16(p[3]), uint16(p[4])<<8 | uint16(p[5])
		}
	}
	if grey {
		return func(x, y int) (r, g, b uint16) {
			v := color.Gray16Model.Convert(img.At(x, y)).(color.Gray16).Y
			return v, v, v
		}
	}
	return func(x, y int) (r, g, b uint16) {
		c := color.NRGBA64Model.Convert(img.At(x, y)).(color.NRGBA64)
		return c.R, c.G, c.B
	}
}
