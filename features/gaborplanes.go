package features

import (
	"fmt"

	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/imageio"
)

// gaborPlanes is the family of the 40 Gabor magnitudes of the grey plane,
// plane i = gabor.Index(v, u) named gabor.Name(v, u), and the group gabor
// of all of them.
var gaborPlanes = func() family {
	names := make([]string, gabor.NumPlanes)
	for v := range gabor.NumScales {
		for u := range gabor.NumOrientations {
			names[gabor.Index(v, u)] = gabor.Name(v, u)
		}
	}
	return family{
		planes:      names,
		listed:      fmt.Sprintf("G_v<v>_u<u> (v = 0..%d, u = 0..%d)", gabor.NumScales-1, gabor.NumOrientations-1),
		groups:      []group{{"gabor", names}},
		reads:       readsGrey,
		check:       checkGaborSize,
		gaborBorder: true,
		build:       buildGabor,
	}
}()

func checkGaborSize(w, h int) error {
	if w > gabor.MaxSide || h > gabor.MaxSide {
		return fmt.Errorf("image size %dx%d exceeds %d, the largest side for Gabor planes", w, h, gabor.MaxSide)
	}
	return nil
}

// buildGabor makes the bank of the set's border, which the passes of all
// goroutines share.
func buildGabor(keep []bool, o settings) (func() pass, error) {
	bank, err := gabor.NewBank(gabor.Params{Border: o.gaborBorder})
	if err != nil {
		return nil, err
	}
	unused := 0
	for _, k := range keep {
		if !k {
			unused++
		}
	}
	return func() pass {
		return &gaborPass{bank: bank, unused: unused, dst: make([][]float64, gabor.NumPlanes)}
	}, nil
}

// gaborPass computes all 40 planes with the bank's MagnitudesTo, those the
// set does not keep into buffers of its own.
type gaborPass struct {
	bank   *gabor.Bank
	unused int // the number of planes the set does not keep
	gw     *gabor.Workspace
	dst    [][]float64 // the bank's 40 destination planes
	buf    []float64   // backing of the planes the set does not keep
}

// prepare makes a gabor.Workspace for w×h images and the buffers of the
// planes the set does not keep.
func (p *gaborPass) prepare(w, h int) error {
	if p.gw != nil {
		if gw, gh := p.gw.Size(); gw == w && gh == h {
			return nil
		}
	}
	gw, err := p.bank.NewWorkspace(w, h)
	if err != nil {
		return err
	}
	if n := p.unused * w * h; cap(p.buf) < n {
		p.buf = make([]float64, n)
	}
	p.gw = gw
	return nil
}

func (p *gaborPass) compute(out [][]float64, img *imageio.Image) error {
	n, j := img.W*img.H, 0
	for i, o := range out {
		if o == nil {
			o = p.buf[j*n : (j+1)*n : (j+1)*n]
			j++
		}
		p.dst[i] = o
	}
	return p.bank.MagnitudesTo(p.dst, img.Gray, img.W, img.H, p.gw)
}
