package plots

import (
	"math"

	"gonum.org/v1/plot/vg"
)

// hatch is a fill pattern of parallel lines. Bars carry one besides their
// colour because colour alone does not survive greyscale printing once
// there are more than a few series.
type hatch int

const (
	hatchNone     hatch = iota
	hatchDiagUp         // ////
	hatchDiagDown       // \\\\
	hatchCross          // XXXX
	hatchHoriz          // ----
	hatchVert           // ||||
)

// directions returns the directions of the lines of h.
func (h hatch) directions() []vg.Point {
	up, down := vg.Point{X: 1, Y: 1}, vg.Point{X: 1, Y: -1}
	switch h {
	case hatchDiagUp:
		return []vg.Point{up}
	case hatchDiagDown:
		return []vg.Point{down}
	case hatchCross:
		return []vg.Point{up, down}
	case hatchHoriz:
		return []vg.Point{{X: 1}}
	case hatchVert:
		return []vg.Point{{Y: 1}}
	}
	return nil
}

// segments returns the pieces of the pattern h that lie inside r. The
// lines of each direction d are {p : n·p = k·spacing, k ∈ ℤ} with n the
// unit normal of d, anchored at the origin so that neighbouring bars'
// patterns line up.
func (h hatch) segments(r vg.Rectangle, spacing vg.Length) [][2]vg.Point {
	var segs [][2]vg.Point
	corners := [4]vg.Point{r.Min, r.Max, {X: r.Min.X, Y: r.Max.Y}, {X: r.Max.X, Y: r.Min.Y}}
	for _, d := range h.directions() {
		norm := math.Hypot(float64(d.X), float64(d.Y))
		n := vg.Point{X: -d.Y / vg.Length(norm), Y: d.X / vg.Length(norm)}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, c := range corners {
			v := float64(n.X*c.X + n.Y*c.Y)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		s := float64(spacing)
		for k := math.Ceil(lo / s); k*s <= hi; k++ {
			p0 := n.Scale(vg.Length(k * s))
			if a, b, ok := clipLine(p0, d, r); ok {
				segs = append(segs, [2]vg.Point{a, b})
			}
		}
	}
	return segs
}

// clipLine returns the part of the line p0 + t·d, t ∈ ℝ, inside r
// (Liang–Barsky clipping). ok is false when the line misses r or only
// touches it in one point.
func clipLine(p0, d vg.Point, r vg.Rectangle) (a, b vg.Point, ok bool) {
	t0, t1 := math.Inf(-1), math.Inf(1)
	clip := func(p, d, min, max vg.Length) bool {
		if d == 0 {
			return min <= p && p <= max
		}
		ta, tb := float64((min-p)/d), float64((max-p)/d)
		if ta > tb {
			ta, tb = tb, ta
		}
		t0, t1 = math.Max(t0, ta), math.Min(t1, tb)
		return true
	}
	if !clip(p0.X, d.X, r.Min.X, r.Max.X) || !clip(p0.Y, d.Y, r.Min.Y, r.Max.Y) || !(t0 < t1) {
		return vg.Point{}, vg.Point{}, false
	}
	return p0.Add(d.Scale(vg.Length(t0))), p0.Add(d.Scale(vg.Length(t1))), true
}
