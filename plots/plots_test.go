package plots

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/foldertest"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// decodePNG reads the PNG at path and checks that it is a whole figure:
// 800×600 and far from blank.
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	img, err := png.Decode(foldertest.Open(t, path))
	if err != nil {
		t.Fatalf("%s is not a valid PNG: %v", path, err)
	}
	if got := img.Bounds().Size(); got != (image.Point{X: 800, Y: 600}) {
		t.Fatalf("%s is %v pixels, want 800x600", path, got)
	}
	colours := make(map[color.RGBA]bool)
	var ink int
	for y := range 600 {
		for x := range 800 {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
			if c != (color.RGBA{255, 255, 255, 255}) {
				ink++
			}
		}
	}
	// Text, axes and anti-aliased data give hundreds of colours; a blank
	// or failed render gives one or two.
	if len(colours) < 50 || ink < 800*600/50 {
		t.Fatalf("%s looks blank: %d colours, %d non-white pixels", path, len(colours), ink)
	}
	return img
}

// countColour returns how many pixels of img are exactly c.
func countColour(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == c {
				n++
			}
		}
	}
	return n
}

// onlyFile fails unless dir holds exactly the file name: no temporary
// files are left behind.
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	if names := foldertest.Names(t, dir); !slices.Equal(names, []string{name}) {
		t.Fatalf("folder holds %v, want only %s", names, name)
	}
}

func TestCMCPNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cmc.png")
	if err := CMC(path, "ETHZ Sequence 1", cmcSample()); err != nil {
		t.Fatal(err)
	}
	onlyFile(t, dir, "cmc.png")
	img := decodePNG(t, path)
	// Every series' colour must show up: lines and filled markers are
	// drawn in the pure series colour.
	for i := range cmcSample() {
		if n := countColour(img, styleOf(i).color); n < 50 {
			t.Errorf("series %d colour %v covers %d pixels, want a drawn curve", i, styleOf(i).color, n)
		}
	}
}

func TestBarChartPNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "texture.PNG") // extensions are case-insensitive
	b := barsSample()
	if err := BarChart(path, b); err != nil {
		t.Fatal(err)
	}
	onlyFile(t, dir, "texture.PNG")
	img := decodePNG(t, path)
	for i := range b.Series {
		// Nine bars, each tens of pixels wide and over a hundred high.
		if n := countColour(img, styleOf(i).color); n < 9*20*100/2 {
			t.Errorf("series %d colour covers %d pixels, too few for its bars", i, n)
		}
	}
	// Bar heights follow the values: the unhatched first series' colour
	// covers an area proportional to the sum of its values.
	tall := barsSample()
	for i := range tall.Series[0].Y {
		tall.Series[0].Y[i] /= 2
	}
	half := filepath.Join(dir, "half.png")
	if err := BarChart(half, tall); err != nil {
		t.Fatal(err)
	}
	full, halved := countColour(img, styleOf(0).color), countColour(decodePNG(t, half), styleOf(0).color)
	if r := float64(halved) / float64(full); math.Abs(r-0.5) > 0.05 {
		t.Errorf("halving the values changed the bar area by %.3f, want 0.5", r)
	}
}

// TestFormats writes each kind of figure in each format and checks the
// files: a PNG decodes to a whole 800×600 figure, an SVG or PDF starts as
// its format does and holds a drawing. With COVPIPE_PLOTS_SAMPLES=DIR
// the figures are written into DIR and kept for visual review, which
// pixel checks cannot replace.
func TestFormats(t *testing.T) {
	dir := os.Getenv("COVPIPE_PLOTS_SAMPLES")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, fig := range []struct {
		name string
		draw func(path string) error
	}{
		{"cmc", func(p string) error { return CMC(p, "ETHZ Sequence 1", cmcSample()) }},
		{"texture", func(p string) error { return BarChart(p, barsSample()) }},
		{"energy", func(p string) error { return Lines(p, "Representation energy", "Iteration", "J", 0, linesSample()) }},
	} {
		for _, tc := range []struct{ ext, magic string }{{".png", "\x89PNG"}, {".svg", "<?xml"}, {".pdf", "%PDF-"}} {
			path := filepath.Join(dir, fig.name+tc.ext)
			if err := fig.draw(path); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte(tc.magic)) || len(data) < 5000 {
				t.Errorf("%s: %d bytes starting %q, want a figure starting %q", path, len(data), data[:min(len(data), 8)], tc.magic)
			}
			if tc.ext == ".png" {
				decodePNG(t, path)
			}
		}
	}
}

func TestDifferentInputs(t *testing.T) {
	dir := t.TempDir()
	render := func(name string, edit func([]Series, *Bars)) (cmc, bars []byte) {
		s, b := cmcSample(), barsSample()
		edit(s, &b)
		pc, pb := filepath.Join(dir, name+"-cmc.png"), filepath.Join(dir, name+"-bars.png")
		if err := CMC(pc, "t", s); err != nil {
			t.Fatal(err)
		}
		if err := BarChart(pb, b); err != nil {
			t.Fatal(err)
		}
		decodePNG(t, pc)
		decodePNG(t, pb)
		cmc, _ = os.ReadFile(pc)
		bars, _ = os.ReadFile(pb)
		return cmc, bars
	}
	c0, b0 := render("a", func([]Series, *Bars) {})
	c1, b1 := render("b", func([]Series, *Bars) {})
	if !bytes.Equal(c0, c1) || !bytes.Equal(b0, b1) {
		t.Error("rendering the same input twice gave different files")
	}
	c2, b2 := render("c", func(s []Series, b *Bars) {
		s[1].Y[3] += 3
		b.Series[2].Err[4] = 0
	})
	if bytes.Equal(c0, c2) {
		t.Error("CMC unchanged after moving one point")
	}
	if bytes.Equal(b0, b2) {
		t.Error("bar chart unchanged after removing one error bar")
	}
	c3, _ := render("d", func(s []Series, _ *Bars) { s[0].Name = "HPE*" })
	if bytes.Equal(c0, c3) {
		t.Error("CMC unchanged after renaming a series")
	}
}

func TestBadInput(t *testing.T) {
	good := func() Bars { return barsSample() }
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name   string
		file   string
		cmc    []Series // used when bars is nil
		bars   func() Bars
		errHas string
	}{
		{"cmc no series", "x.png", nil, nil, "no series"},
		{"cmc empty series", "x.png", []Series{{Name: "A"}}, nil, `series 0 ("A") has no values`},
		{"cmc Err length", "x.png", []Series{{Name: "A", Y: []float64{1, 2}, Err: []float64{1}}}, nil, "Err has 1 values, Y has 2"},
		{"cmc NaN", "x.png", []Series{{Y: []float64{50}}, {Name: "B", Y: []float64{50, nan}}}, nil, `series 1 ("B"): Y[1] is NaN`},
		{"cmc Inf", "x.png", []Series{{Y: []float64{inf}}}, nil, "Y[0] is +Inf"},
		{"cmc NaN Err", "x.png", []Series{{Y: []float64{1}, Err: []float64{nan}}}, nil, "Err[0] is NaN"},
		{"cmc negative Err", "x.png", []Series{{Y: []float64{1}, Err: []float64{-1}}}, nil, "Err[0] is -1"},
		{"cmc above 100", "x.png", []Series{{Y: []float64{50, 100.5}}}, nil, "Y[1] = 100.5 is not a percentage"},
		{"cmc negative rate", "x.png", []Series{{Y: []float64{-1}}}, nil, "not a percentage"},
		{"cmc extension", "x.jpg", cmcSample(), nil, `unsupported file extension ".jpg"`},
		{"cmc no extension", "x", cmcSample(), nil, "unsupported file extension"},
		{"cmc missing folder", "missing/x.png", cmcSample(), nil, "missing"},
		{"bars no groups", "x.png", nil, func() Bars { b := good(); b.Groups = nil; return b }, "no groups"},
		{"bars no series", "x.png", nil, func() Bars { b := good(); b.Series = nil; return b }, "no series"},
		{"bars short series", "x.png", nil, func() Bars { b := good(); b.Series[1].Y = b.Series[1].Y[:3]; return b },
			`series 1 ("TSC") has 3 values, want 9 (one per group)`},
		{"bars Err length", "x.png", nil, func() Bars { b := good(); b.Series[2].Err = b.Series[2].Err[1:]; return b }, "Err has 8 values, Y has 9"},
		{"bars NaN", "x.png", nil, func() Bars { b := good(); b.Series[0].Y[8] = nan; return b }, "Y[8] is NaN"},
		{"bars -Inf", "x.png", nil, func() Bars { b := good(); b.Series[0].Y[0] = math.Inf(-1); return b }, "Y[0] is -Inf"},
		{"bars negative Err", "x.png", nil, func() Bars { b := good(); b.Series[0].Err[2] = -0.1; return b }, "Err[2] is -0.1"},
		{"bars extension", "x.gif", nil, good, `unsupported file extension ".gif"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			var err error
			var what string
			if tc.bars == nil {
				err, what = CMC(path, "t", tc.cmc), "CMC plot "
			} else {
				err, what = BarChart(path, tc.bars()), "bar chart "
			}
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.Contains(msg, tc.errHas) || !strings.HasPrefix(msg, what+path) {
				t.Errorf("error %q, want it to name %s%s and contain %q", msg, what, path, tc.errHas)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("failed call left %v behind", entries)
			}
		})
	}
}

// TestOverwrite checks that a new figure replaces an old one whole.
func TestOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CMC(path, "", []Series{{Y: []float64{100}}}); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path)
	onlyFile(t, dir, "f.png")
	// A failing call leaves the previous figure untouched.
	before, _ := os.ReadFile(path)
	if err := CMC(path, "", []Series{{Y: []float64{math.NaN()}}}); err == nil {
		t.Fatal("NaN accepted")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("failed call changed the existing figure")
	}
}

func TestStylesSurviveGreyscale(t *testing.T) {
	// The first three series (the paper's figures have three or four)
	// must differ in grey level by a clearly visible step.
	for i := range 3 {
		for j := range i {
			if d := math.Abs(luminance(styleOf(i).color) - luminance(styleOf(j).color)); d < 40 {
				t.Errorf("series %d and %d differ by %.0f grey levels, want >= 40", i, j, d)
			}
		}
	}
	// Beyond colour, neighbours always differ in marker and dashes, and
	// the first six in hatch; styles cycle after eight.
	for i := range 8 {
		a, b := styleOf(i), styleOf(i+1)
		if a.glyph == b.glyph || slices.Equal(a.dashes, b.dashes) {
			t.Errorf("series %d and %d share a marker or dash pattern", i, i+1)
		}
	}
	for i := range 6 {
		for j := range i {
			if styleOf(i).hatch == styleOf(j).hatch {
				t.Errorf("series %d and %d share a hatch", i, j)
			}
		}
	}
	if a, b := styleOf(3), styleOf(11); a.color != b.color || a.glyph != b.glyph || a.hatch != b.hatch {
		t.Error("styles do not cycle after eight")
	}
}

func TestRankTicks(t *testing.T) {
	labels := func(n int) []string {
		var l []string
		for _, tk := range rankTicks(n) {
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return l
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, "1"},
		{7, "1 2 3 4 5 6 7"},
		{15, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"},
		{16, "1 2 4 6 8 10 12 14 16"},
		{25, "1 5 10 15 20 25"},
		{83, "1 10 20 30 40 50 60 70 80"},
		{1000, "1 100 200 300 400 500 600 700 800 900 1000"},
	} {
		if got := strings.Join(labels(tc.n), " "); got != tc.want {
			t.Errorf("rankTicks(%d) labels %q, want %q", tc.n, got, tc.want)
		}
	}
	for n := 1; n <= 3000; n++ {
		ticks := rankTicks(n)
		l := labels(n)
		if len(l) > 15 || (n > 15 && len(l) > 11) || l[0] != "1" {
			t.Fatalf("rankTicks(%d) labels %v", n, l)
		}
		for _, tk := range ticks {
			if tk.Value < 1 || tk.Value > float64(n) || tk.Value != math.Trunc(tk.Value) {
				t.Fatalf("rankTicks(%d) has tick at %v", n, tk.Value)
			}
		}
		if n <= 60 && len(ticks) != n {
			t.Fatalf("rankTicks(%d) has %d ticks, want one per rank", n, len(ticks))
		}
	}
}

func TestMarkedRanks(t *testing.T) {
	xys := make(plotter.XYs, 23)
	for i := range xys {
		xys[i] = plotter.XY{X: float64(i + 1), Y: float64(i)}
	}
	for _, tc := range []struct {
		step int
		want []float64
	}{
		{1, func() []float64 {
			var r []float64
			for i := 1; i <= 23; i++ {
				r = append(r, float64(i))
			}
			return r
		}()},
		{5, []float64{1, 5, 10, 15, 20}},
		{30, []float64{1}},
	} {
		var got []float64
		for _, xy := range markedRanks(xys, tc.step) {
			if xy.Y != xy.X-1 {
				t.Fatalf("point %v moved", xy)
			}
			got = append(got, xy.X)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("step %d: marked ranks %v, want %v", tc.step, got, tc.want)
		}
	}
}

func TestCMCFloor(t *testing.T) {
	for _, tc := range []struct{ lo, want float64 }{
		{100, 95}, // gap 2
		{97, 95},
		{96.5, 90}, // 96.5-2 = 94.5
		{64.8, 60}, // gap 1.76 -> 2
		{40, 35},   // gap 3
		{30, 25},   // gap 3.5
		{3, 0},
		{0, 0},
	} {
		if got := cmcFloor(tc.lo); got != tc.want {
			t.Errorf("cmcFloor(%v) = %v, want %v", tc.lo, got, tc.want)
		}
	}
	for lo := 0.0; lo <= 100; lo += 0.37 {
		f := cmcFloor(lo)
		if f < 0 || f > lo-math.Min(2, lo) || math.Mod(f, 5) != 0 || lo-f > 2+0.05*(100-lo)+5 {
			t.Fatalf("cmcFloor(%v) = %v", lo, f)
		}
	}
}

func TestValueTicks(t *testing.T) {
	labels := func(lo, hi float64) string {
		var l []string
		for _, tk := range (valueTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return strings.Join(l, " ")
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{60, 100, "60 65 70 75 80 85 90 95 100"},
		{0, 106, "0 20 40 60 80 100"},
		{-3.6, 3.6, "-3 -2 -1 0 1 2 3"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{0, 2, "0 0.25 0.5 0.75 1 1.25 1.5 1.75 2"},
		{0.1, 0.3, "0.1 0.125 0.15 0.175 0.2 0.225 0.25 0.275 0.3"},
	} {
		// Trailing zeros are kept to the step's precision ("0.50"), so
		// compare numbers, not strings.
		got := strings.Fields(labels(tc.lo, tc.hi))
		want := strings.Fields(tc.want)
		if len(got) != len(want) {
			t.Errorf("ticks on [%v, %v]: %v, want %v", tc.lo, tc.hi, got, want)
			continue
		}
		for i := range got {
			if g, w := parse(t, got[i]), parse(t, want[i]); math.Abs(g-w) > 1e-12 {
				t.Errorf("ticks on [%v, %v]: %v, want %v", tc.lo, tc.hi, got, want)
				break
			}
		}
	}
	if l := labels(-1, 1); strings.Contains(l, "-0 ") {
		t.Errorf("labels %q contain -0", l)
	}
	// Random ranges: 4 to 9 labels, evenly spaced, inside the range.
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		lo := (r.Float64() - 0.5) * math.Pow(10, r.Float64()*8-4)
		hi := lo + math.Pow(10, r.Float64()*8-4)
		tol := 1e-9*(hi-lo) + 1e-12*(math.Abs(lo)+math.Abs(hi))
		var vals []float64
		for _, tk := range (valueTicks{}).Ticks(lo, hi) {
			if tk.Value < lo-tol || tk.Value > hi+tol {
				t.Fatalf("tick %v outside [%v, %v]", tk.Value, lo, hi)
			}
			if tk.Label != "" {
				vals = append(vals, tk.Value)
				if v := parse(t, tk.Label); math.Abs(v-tk.Value) > tol {
					t.Fatalf("label %q at %v", tk.Label, tk.Value)
				}
			}
		}
		if len(vals) < 4 || len(vals) > 9 {
			t.Fatalf("[%v, %v]: %d labels %v", lo, hi, len(vals), vals)
		}
		for i := 2; i < len(vals); i++ {
			if math.Abs((vals[i]-vals[i-1])-(vals[1]-vals[0])) > tol {
				t.Fatalf("[%v, %v]: uneven labels %v", lo, hi, vals)
			}
		}
	}
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("label %q: %v", s, err)
	}
	return v
}

func TestLegendColumns(t *testing.T) {
	w := func(xs ...float64) []vg.Length {
		l := make([]vg.Length, len(xs))
		for i, x := range xs {
			l[i] = vg.Length(x)
		}
		return l
	}
	// Fits on one row: natural widths.
	if got := legendColumns(w(50, 80, 60), 500); !slices.Equal(got, w(50, 80, 60)) {
		t.Errorf("one row: %v", got)
	}
	// Too wide: equal columns of the widest entry, as many as fit.
	got := legendColumns(w(200, 100, 150, 120), 500)
	if !slices.Equal(got, w(200, 200)) {
		t.Errorf("wrapped: %v, want two columns of 200", got)
	}
	// An entry wider than the space still gets one column.
	if got := legendColumns(w(900, 10), 500); !slices.Equal(got, w(900)) {
		t.Errorf("overwide: %v", got)
	}
	for n := 1; n < 12; n++ {
		ws := make([]vg.Length, n)
		for i := range ws {
			ws[i] = vg.Length(40 + 37*i%110)
		}
		cols := legendColumns(ws, 560)
		total := vg.Length(len(cols)-1) * entryGap
		for _, c := range cols {
			total += c
		}
		if total > 560 && len(cols) > 1 {
			t.Errorf("%d entries: columns %v are %v wide, more than 560", n, cols, total)
		}
	}
}

// TestClipLine compares Liang–Barsky clipping with dense sampling of the
// line.
func TestClipLine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rect := vg.Rectangle{Min: vg.Point{X: -3, Y: 2}, Max: vg.Point{X: 7, Y: 5}}
	inside := func(p vg.Point) bool {
		const eps = 1e-9
		return p.X >= rect.Min.X-eps && p.X <= rect.Max.X+eps && p.Y >= rect.Min.Y-eps && p.Y <= rect.Max.Y+eps
	}
	for range 500 {
		p0 := vg.Point{X: vg.Length(r.Float64()*20 - 8), Y: vg.Length(r.Float64()*10 - 1)}
		// |d| in [0.5, 2], so that t in [-60, 60] reaches past the rectangle.
		angle, norm := r.Float64()*2*math.Pi, 0.5+1.5*r.Float64()
		d := vg.Point{X: vg.Length(norm * math.Cos(angle)), Y: vg.Length(norm * math.Sin(angle))}
		switch r.IntN(4) { // axis-parallel lines are special cases
		case 0:
			d = vg.Point{Y: vg.Length(norm)}
		case 1:
			d = vg.Point{X: vg.Length(-norm)}
		}
		a, b, ok := clipLine(p0, d, rect)
		// Brute force: the range of t for which p0 + t·d is inside.
		tmin, tmax := math.Inf(1), math.Inf(-1)
		const dt = 1e-3
		for k := -60000; k <= 60000; k++ {
			tt := float64(k) * dt
			if inside(p0.Add(d.Scale(vg.Length(tt)))) {
				tmin, tmax = math.Min(tmin, tt), math.Max(tmax, tt)
			}
		}
		hit := tmax-tmin > 2*dt
		if ok != hit {
			if math.IsInf(tmin, 0) || tmax-tmin > 5*dt {
				t.Fatalf("line %v+t%v: clip ok=%v, sampling found t in [%v, %v]", p0, d, ok, tmin, tmax)
			}
			continue // grazing a corner: either answer is fine
		}
		if !ok {
			continue
		}
		if !inside(a) || !inside(b) {
			t.Fatalf("clipped segment %v-%v leaves %v", a, b, rect)
		}
		want0, want1 := p0.Add(d.Scale(vg.Length(tmin))), p0.Add(d.Scale(vg.Length(tmax)))
		tol := vg.Length(2 * dt * math.Hypot(float64(d.X), float64(d.Y)))
		if dist(a, want0) > tol || dist(b, want1) > tol {
			t.Fatalf("line %v+t%v: got %v-%v, sampling gives %v-%v", p0, d, a, b, want0, want1)
		}
	}
}

func dist(a, b vg.Point) vg.Length {
	return vg.Length(math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)))
}

func TestHatchSegments(t *testing.T) {
	rect := vg.Rectangle{Min: vg.Point{X: 0, Y: 0}, Max: vg.Point{X: 20, Y: 12}}
	// Horizontal lines at y = 0, 5, 10, each 20 long.
	h := hatchHoriz.segments(rect, 5)
	if len(h) != 3 {
		t.Fatalf("horizontal hatch: %d segments, want 3", len(h))
	}
	for i, s := range h {
		if s[0].Y != vg.Length(5*i) || s[1].Y != s[0].Y || dist(s[0], s[1]) != 20 {
			t.Errorf("horizontal segment %d: %v", i, s)
		}
	}
	if n := len(hatchVert.segments(rect, 5)); n != 5 { // x = 0, 5, …, 20
		t.Errorf("vertical hatch: %d segments, want 5", n)
	}
	if n := len(hatchNone.segments(rect, 5)); n != 0 {
		t.Errorf("no hatch: %d segments", n)
	}
	// Diagonals: x - y = k·5·√2 for the "/" pattern, endpoints on the
	// border, and the cross is both diagonals.
	up := hatchDiagUp.segments(rect, 5)
	down := hatchDiagDown.segments(rect, 5)
	if got := len(hatchCross.segments(rect, 5)); got != len(up)+len(down) {
		t.Errorf("cross hatch has %d segments, want %d", got, len(up)+len(down))
	}
	for _, s := range up {
		for _, p := range s {
			onBorder := math.Abs(float64(p.X-rect.Min.X)) < 1e-9 || math.Abs(float64(p.X-rect.Max.X)) < 1e-9 ||
				math.Abs(float64(p.Y-rect.Min.Y)) < 1e-9 || math.Abs(float64(p.Y-rect.Max.Y)) < 1e-9
			if !onBorder {
				t.Errorf("segment end %v not on the border", p)
			}
			k := float64(p.Y-p.X) / math.Sqrt2 / 5
			if math.Abs(k-math.Round(k)) > 1e-9 {
				t.Errorf("segment end %v is not on a hatch line", p)
			}
		}
		if math.Abs(float64((s[1].X-s[0].X)-(s[1].Y-s[0].Y))) > 1e-9 {
			t.Errorf("segment %v is not at 45°", s)
		}
	}
	// The "/" lines cover the rectangle's diagonal span: y - x from -20
	// to 12 is 32/(5√2) ≈ 4.5 spacings, so 4 or 5 lines.
	if len(up) < 4 || len(up) > 5 {
		t.Errorf("%d diagonal lines", len(up))
	}
}

// FuzzCMC feeds arbitrary values to CMC: it must never panic, must
// reject exactly the invalid inputs, and must write a figure otherwise.
func FuzzCMC(f *testing.F) {
	f.Add(79.5, 83.8, 90.0, 1.0)
	f.Add(0.0, 0.0, 0.0, 0.0)
	f.Add(100.0, 100.0, 100.0, 50.0)
	f.Add(math.NaN(), 1.0, 2.0, 0.0)
	f.Add(50.0, 101.0, 2.0, -1.0)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, a, b, c, e float64) {
		path := filepath.Join(dir, "f.png")
		os.Remove(path)
		s := []Series{{Name: "A", Y: []float64{a, b, c}, Err: []float64{e, e, e}}, {Name: "B", Y: []float64{c, b}}}
		err := CMC(path, "fuzz", s)
		valid := true
		for _, y := range []float64{a, b, c} {
			valid = valid && y >= 0 && y <= 100
		}
		valid = valid && e >= 0 && !math.IsInf(e, 0)
		if (err == nil) != valid {
			t.Fatalf("CMC(%v, %v, %v ± %v) error %v, valid %v", a, b, c, e, err, valid)
		}
		if _, statErr := os.Stat(path); (statErr == nil) != valid {
			t.Fatalf("file exists %v, valid %v", statErr == nil, valid)
		}
	})
}

func TestLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.png")
	series := []Series{{Name: "learned", Y: []float64{72, 66, 64, 63.2}}, {Name: "sources", Y: []float64{60, 60, 60, 60}}}
	if err := Lines(p, "J", "iteration", "J", 0, series); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(p); err != nil || st.Size() < 1000 {
		t.Errorf("line plot: %v", err)
	}
	for _, bad := range [][]Series{nil, {{Name: "x"}}, {{Y: []float64{1, math.NaN()}}}} {
		if err := Lines(filepath.Join(dir, "bad.png"), "", "", "", 0, bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if err := Lines(filepath.Join(dir, "j.gif"), "", "", "", 0, series); err == nil {
		t.Error(".gif accepted")
	}
	off := []Series{{Name: "learned", Y: []float64{72, 66, 64, 63.2}}, {Name: "sources", Y: []float64{312.6, 312.6, 312.6, 312.6}, OffAxis: true}}
	if err := Lines(filepath.Join(dir, "off.png"), "", "", "", 0, off[1:]); err == nil || !strings.Contains(err.Error(), "every series is off the axis") {
		t.Errorf("every series off the axis: %v", err)
	}
}

// TestLinesOffAxis checks that a series marked OffAxis is not drawn, so
// that the axis spans the other series only, and that its legend entry
// gives its value or range.
func TestLinesOffAxis(t *testing.T) {
	series := []Series{
		{Name: "learned", Y: []float64{72, 66, 64, 63.2}},
		{Name: "sources", Y: []float64{312.6, 312.6, 312.6, 312.6}, OffAxis: true},
		{Name: "far", Y: []float64{1000, 1002}, OffAxis: true},
	}
	f, err := linesFigure("", "Iteration", "J", 0, series)
	if err != nil {
		t.Fatal(err)
	}
	if f.plot.Y.Min != 63.2 || f.plot.Y.Max != 72 {
		t.Errorf("axis [%v, %v], want [63.2, 72]: the series off the axis were drawn", f.plot.Y.Min, f.plot.Y.Max)
	}
	var names []string
	for _, e := range f.legend {
		names = append(names, e.name)
	}
	want := []string{"learned", "sources (J = 312.6, off the axis)", "far (J = 1000 to 1002, off the axis)"}
	if !slices.Equal(names, want) {
		t.Errorf("legend %q, want %q", names, want)
	}
}

func TestROC(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "roc.png")
	far := []float64{0, 10, 50, 100}
	series := []Series{{Name: "rsr", Y: []float64{40, 80, 95, 100}}, {Name: "nn", Y: []float64{10, 30, 70, 100}}}
	if err := ROC(p, "open set", far, series); err != nil {
		t.Fatal(err)
	}
	onlyFile(t, dir, "roc.png")
	img := decodePNG(t, p)
	for i := range series {
		if n := countColour(img, styleOf(i).color); n < 50 {
			t.Errorf("series %d colour covers %d pixels, want a drawn curve", i, n)
		}
	}
	for _, tc := range []struct {
		far    []float64
		series []Series
		errHas string
	}{
		{nil, series, "no false accept rates"},
		{[]float64{0, 50, 10, 100}, series, "false accept rate 2 is 10"},
		{[]float64{0, 10, 50, 101}, series, "false accept rate 3 is 101"},
		{far, []Series{{Y: []float64{1, 2}}}, "has 2 values, want 4"},
		{far, []Series{{Name: "x", Y: []float64{1, 2, 3, 120}}}, `series 0 ("x"): true accept rate 120 at 100%`},
	} {
		if err := ROC(filepath.Join(dir, "bad.png"), "", tc.far, tc.series); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("far %v, series %v: error %v, want %q", tc.far, tc.series, err, tc.errHas)
		}
	}
}
