package features

import (
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/gabor"
)

// Set is an ordered list of feature planes: the per-pixel feature vector
// F(x, y) of a covariance descriptor. It is immutable and safe for
// concurrent use.
type Set struct {
	names []string
	parts []part
	str   string

	needGray bool
	// colour names the first plane that reads R, G or B, empty if none.
	colour   string
	hasGabor bool
	border   gabor.Border
}

// part is the planes of one family that a set keeps.
type part struct {
	fam *family
	// index[i] is the set's index of the family's plane i, or −1.
	index []int
	// newPass makes the pass of a Workspace.
	newPass func() pass
}

// gaborBorderKey is the option of a feature spec that selects the Gabor
// border extension.
const gaborBorderKey = "gabor-border"

// Parse returns the set of a feature spec: comma-separated names (white
// space around each ignored; see New), optionally followed by options
// after a semicolon. For example
//
//	I, Ix, Iy, Ixx, Iyy
//	face
//	x,y,R,G,B,R',G',B',R'',G'',B''
//	face; gabor-border=symmetric
//
// The one option is gabor-border=zero|symmetric, the border extension of
// the Gabor convolutions (gabor.ParseBorder; default zero, MATLAB's
// conv2(I, G, 'same')); it is an error for a set without Gabor planes.
// Parse of a Set's String gives the same set.
func Parse(spec string) (*Set, error) {
	list, optText, hasOpts := strings.Cut(spec, ";")
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("features: empty feature list; %s", table.valid)
	}
	names := strings.Split(list, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	s, err := New(names)
	if err != nil || !hasOpts {
		return s, err
	}
	for _, opt := range strings.Split(optText, ";") {
		key, val, ok := strings.Cut(opt, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || key != gaborBorderKey {
			return nil, fmt.Errorf("features: unknown option %q in %q (the one option is %s=zero|symmetric)", strings.TrimSpace(opt), spec, gaborBorderKey)
		}
		b, err := gabor.ParseBorder(val)
		if err != nil {
			return nil, fmt.Errorf("features: %s: %w", gaborBorderKey, err)
		}
		if s, err = s.WithGaborBorder(b); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ParseWithGaborBorder is Parse with the Gabor border given apart from the
// spec, as a command-line flag or a config key gives it: border is "zero",
// "symmetric" or "" (what the spec says, default zero). It returns an error
// when both the spec and border name a border, and when border is given
// for a set without Gabor planes.
func ParseWithGaborBorder(spec, border string) (*Set, error) {
	s, err := Parse(spec)
	if err != nil || border == "" {
		return s, err
	}
	if _, opts, _ := strings.Cut(spec, ";"); strings.Contains(opts, gaborBorderKey) {
		return nil, fmt.Errorf("features: the Gabor border is given twice, in %q and as %q: give it once", spec, border)
	}
	b, err := gabor.ParseBorder(border)
	if err != nil {
		return nil, fmt.Errorf("features: Gabor border: %w", err)
	}
	return s.WithGaborBorder(b)
}

// New returns the set of the named features, in order, with presets and
// groups expanded in place (see the package documentation for the names).
// It returns an error, listing the valid names, for an empty list, an empty
// or unknown name, and a plane named twice, directly or through a group or
// preset.
func New(names []string) (*Set, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("features: empty feature list; %s", table.valid)
	}
	s := new(Set)
	from := make(map[string]string) // expanded name -> the name it came from
	index := make([][]int, len(families))
	var expand func(name, origin string) error
	expand = func(name, origin string) error {
		if members, ok := table.groups[name]; ok {
			for _, m := range members {
				if err := expand(m, origin); err != nil {
					return err
				}
			}
			return nil
		}
		ref, ok := table.planes[name]
		if !ok {
			return fmt.Errorf("features: unknown feature %q; %s", name, table.valid)
		}
		if prev, dup := from[name]; dup {
			if prev == name && origin == name {
				return fmt.Errorf("features: duplicate feature %q", name)
			}
			return fmt.Errorf("features: duplicate feature %q (from %q and %q)", name, prev, origin)
		}
		from[name] = origin
		fam := &families[ref.fam]
		switch fam.reads {
		case readsGrey:
			s.needGray = true
		case readsColour:
			if s.colour == "" {
				s.colour = name
			}
		}
		if index[ref.fam] == nil {
			index[ref.fam] = slices.Repeat([]int{-1}, len(fam.planes))
		}
		index[ref.fam][ref.i] = len(s.names)
		s.names = append(s.names, name)
		return nil
	}
	for i, n := range names {
		if n == "" {
			return nil, fmt.Errorf("features: empty name at position %d of %d; %s", i+1, len(names), table.valid)
		}
		if err := expand(n, n); err != nil {
			return nil, err
		}
	}
	for f, idx := range index {
		if idx != nil {
			s.parts = append(s.parts, part{fam: &families[f], index: idx})
			s.hasGabor = s.hasGabor || families[f].gaborBorder
		}
	}
	if err := s.build(settings{gaborBorder: gabor.ZeroPad}); err != nil {
		return nil, err
	}
	return s, nil
}

// build makes the passes of s's parts for o, replacing the parts, and
// sets the canonical form.
func (s *Set) build(o settings) error {
	parts := make([]part, len(s.parts))
	for k, p := range s.parts {
		keep := make([]bool, len(p.index))
		for i, j := range p.index {
			keep[i] = j >= 0
		}
		var err error
		if p.newPass, err = p.fam.build(keep, o); err != nil {
			return fmt.Errorf("features: %w", err)
		}
		parts[k] = p
	}
	s.parts, s.border = parts, o.gaborBorder
	s.setString()
	return nil
}

// setString sets the canonical form: the names, and the Gabor border when
// there are Gabor planes. Naming the border even at its default keeps
// cache keys and metadata unambiguous across covpipe versions whose
// defaults differ.
func (s *Set) setString() {
	s.str = strings.Join(s.names, ",")
	if s.hasGabor {
		s.str += ";" + gaborBorderKey + "=" + s.border.String()
	}
}

// WithGaborBorder returns a copy of s whose Gabor planes use border b. It
// returns an error for a set without Gabor planes, where the border would
// silently do nothing.
func (s *Set) WithGaborBorder(b gabor.Border) (*Set, error) {
	if !s.hasGabor {
		return nil, fmt.Errorf("features: %s=%v given, but %q has no Gabor planes", gaborBorderKey, b, strings.Join(s.names, ","))
	}
	c := *s
	if err := c.build(settings{gaborBorder: b}); err != nil {
		return nil, err
	}
	return &c, nil
}

// HasGabor reports whether the set has Gabor planes.
func (s *Set) HasGabor() bool { return s.hasGabor }

// GaborBorder returns the border extension of the Gabor planes (ZeroPad,
// the default, for a set without them).
func (s *Set) GaborBorder() gabor.Border { return s.border }

// Names returns the expanded plane names in order; its length is the
// descriptor dimension d. The slice is a copy.
func (s *Set) Names() []string { return append([]string(nil), s.names...) }

// Dim returns the number of planes d, the side of the d×d covariance
// descriptor.
func (s *Set) Dim() int { return len(s.names) }

// NeedsColor reports whether the set reads the colour planes R, G, B, so
// that images must be loaded with imageio.Options.Color.
func (s *Set) NeedsColor() bool { return s.colour != "" }

// String returns the canonical form of the set: its expanded names joined
// by commas without spaces, for example "I,Ix,Iy,Ixx,Iyy", followed for a
// set with Gabor planes by its border, ";gabor-border=zero". Parse of it
// gives the same set; it identifies the features in metadata and cache keys.
func (s *Set) String() string { return s.str }
