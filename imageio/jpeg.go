package imageio

import (
	"fmt"
	"image"
)

// jpegScaleDenom returns the largest d of 8, 4 and 2 for which the w x h
// image (as stored) decoded at 1/d, ceil(w/d) x ceil(h/d), and oriented by
// o is still at least margin times the tw x th target in both dimensions;
// 1 when none is.
func jpegScaleDenom(w, h, o, tw, th, margin int) int {
	for _, d := range []int{8, 4, 2} {
		sw, sh := orientedSize((w+d-1)/d, (h+d-1)/d, o)
		if sw >= margin*tw && sh >= margin*th {
			return d
		}
	}
	return 1
}

// decodeReducedJPEG decodes data, when it is a JPEG that the Loader may
// decode at reduced scale (a resize target, JPEGScaleAuto or
// JPEGScaleFast, a scale that covers twice or once the target, and a
// file that package jpegscale decodes), and
// converts it into dst. It reports false when it did not, for the caller
// to decode data as any other file: any failure of the reduced decode,
// ErrUnsupported or corrupt data, falls back to image/jpeg, which then
// gives its own error for a corrupt file.
func (l *Loader) decodeReducedJPEG(data []byte, dst *Image) bool {
	if l.opts.Width == 0 || l.opts.JPEGScale == JPEGScaleOff || len(data) < 2 || data[0] != 0xff || data[1] != 0xd8 {
		return false
	}
	cfg, err := l.jd.DecodeConfig(data)
	if err != nil || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return false
	}
	orientation := jpegOrientation(data)
	margin := 2
	if l.opts.JPEGScale == JPEGScaleFast {
		margin = 1
	}
	denom := jpegScaleDenom(cfg.Width, cfg.Height, orientation, l.opts.Width, l.opts.Height, margin)
	if denom == 1 {
		return false
	}
	// Fast decodes to the target's size: its chroma needs the luma's
	// resolution. Auto decodes to at least twice the target's: chroma
	// subsampled as in the file still has the target's resolution.
	l.jd.FullChroma = l.opts.JPEGScale == JPEGScaleFast
	img, err := l.decodeScaled(data, denom)
	if err != nil {
		return false
	}
	dst.Format = "jpeg"
	if err := l.convert(img, orientation, dst); err != nil {
		return false
	}
	dst.SourceW, dst.SourceH = cfg.Width, cfg.Height
	dst.DecodeScale = denom
	return true
}

// decodeScaled runs the Loader's jpegscale.Decoder at 1/denom, turning a
// panic, which it should never raise, into an error as decodeImage does
// for the registered decoders.
func (l *Loader) decodeScaled(data []byte, denom int) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("decoding jpeg at 1/%d: decoder panicked on corrupt data: %v", denom, r)
		}
	}()
	return l.jd.Decode(data, denom)
}
