package features

import (
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/imageio"
)

// families lists the plane families in the order of the package
// documentation, which is also the order of the valid names in error
// messages. Adding a family is a file defining it and a line here.
var families = []family{
	coordinates,
	channel("I", readsGrey, func(img *imageio.Image) []float64 { return img.Gray }),
	channel("R", readsColour, func(img *imageio.Image) []float64 { return img.R }),
	channel("G", readsColour, func(img *imageio.Image) []float64 { return img.G }),
	channel("B", readsColour, func(img *imageio.Image) []float64 { return img.B }),
	gaborPlanes,
}

// presets are the paper's feature sets (Sec. 5.1), in documentation order.
var presets = []group{
	{"texture", []string{"I", "Ix", "Iy", "Ixx", "Iyy"}},
	{"face", []string{"I", "x", "y", "gabor"}},
	{"reid", []string{"x", "y", "R", "G", "B", "R'", "G'", "B'", "R''", "G''", "B''"}},
}

// A family is a kind of feature plane: the names of its planes, what they
// read from the image and how one pass computes all of those a set keeps.
type family struct {
	// planes are the names of its single planes, in documentation order.
	planes []string
	// listed stands for the planes in the list of valid names; empty
	// lists them one by one.
	listed string
	// groups are names that stand for several of its planes.
	groups []group
	// reads is what the planes read from the image, which ComputeTo
	// checks before computing any plane.
	reads input
	// check, when not nil, returns an error for image sizes the planes
	// do not accept; ComputeTo calls it before checking any pixel.
	check func(w, h int) error
	// gaborBorder reports that the planes use the set's Gabor border,
	// the spec option gabor-border.
	gaborBorder bool
	// build returns, for the planes a set keeps (keep[i] for plane i) and
	// the set's settings, the constructor of a per-goroutine pass.
	build func(keep []bool, o settings) (newPass func() pass, err error)
}

// group is a name that stands for a list of names.
type group struct {
	name    string
	members []string
}

// input is what a family's planes read from the image.
type input uint8

const (
	readsNothing input = iota
	readsGrey          // imageio.Image.Gray
	readsColour        // imageio.Image.R, G and B
)

// settings are the options of a set that families read.
type settings struct {
	gaborBorder gabor.Border
}

// A pass computes the planes of one family that a set keeps, for one
// goroutine; it may keep buffers from one image to the next.
type pass interface {
	// compute writes the planes of img: out[i] is the destination of the
	// family's plane i, of length img.W·img.H, or nil when the set does not
	// keep it. It is called only for images that passed the checks of the
	// family's reads and check, so its error is for failures those checks
	// cannot foresee.
	compute(out [][]float64, img *imageio.Image) error
}

// A preparer is a pass that must get ready for each image size, which may
// fail; ComputeTo calls prepare before writing any plane, so that the
// error leaves the destination unchanged.
type preparer interface {
	prepare(w, h int) error
}

// shared returns the build of a family whose pass keeps nothing between
// images, so that p serves every set and goroutine.
func shared(p pass) func([]bool, settings) (func() pass, error) {
	newPass := func() pass { return p }
	return func([]bool, settings) (func() pass, error) { return newPass, nil }
}

// planeRef locates a single plane: plane i of families[fam].
type planeRef struct{ fam, i int }

// nameTable resolves the names of a feature spec.
type nameTable struct {
	planes map[string]planeRef
	// groups maps a group or preset name to the names it expands to.
	groups map[string][]string
	// valid lists the accepted names, for error messages.
	valid string
}

// table is built from families and presets at initialisation and is
// read-only after.
var table = mustNameTable(families, presets)

func mustNameTable(fams []family, presets []group) *nameTable {
	t, err := newNameTable(fams, presets)
	if err != nil {
		panic(err)
	}
	return t
}

// newNameTable indexes the names of fams and presets. It returns an error
// for a name defined twice, a family group naming other than the family's
// planes, and a preset naming other than planes and family groups.
func newNameTable(fams []family, presets []group) (*nameTable, error) {
	t := &nameTable{planes: map[string]planeRef{}, groups: map[string][]string{}}
	defined := func(name string) bool {
		_, p := t.planes[name]
		_, g := t.groups[name]
		return p || g
	}
	var planeList, groupList, presetList []string
	for f, fam := range fams {
		for i, name := range fam.planes {
			if defined(name) {
				return nil, fmt.Errorf("features: plane %q defined twice", name)
			}
			t.planes[name] = planeRef{f, i}
		}
		if fam.listed != "" {
			planeList = append(planeList, fam.listed)
		} else {
			planeList = append(planeList, fam.planes...)
		}
	}
	for _, fam := range fams {
		for _, g := range fam.groups {
			for _, m := range g.members {
				if !slices.Contains(fam.planes, m) {
					return nil, fmt.Errorf("features: group %q names %q, not a plane of its family", g.name, m)
				}
			}
			if defined(g.name) {
				return nil, fmt.Errorf("features: group %q defined twice", g.name)
			}
			t.groups[g.name] = g.members
			groupList = append(groupList, g.name)
		}
	}
	for _, p := range presets {
		for _, m := range p.members {
			if !defined(m) {
				return nil, fmt.Errorf("features: preset %q names %q, neither a plane nor a group", p.name, m)
			}
		}
		if defined(p.name) {
			return nil, fmt.Errorf("features: preset %q defined twice", p.name)
		}
		t.groups[p.name] = p.members
		presetList = append(presetList, p.name)
	}
	t.valid = fmt.Sprintf("valid names: %s; groups: %s; presets: %s",
		strings.Join(planeList, ", "), strings.Join(groupList, ", "), strings.Join(presetList, ", "))
	return t, nil
}
