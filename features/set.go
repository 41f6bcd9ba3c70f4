package features

import (
	"fmt"
	"strings"

	"github.com/covpipe/covpipe/gabor"
)

// source is the plane a feature is computed from.
type source uint8

const (
	srcX source = iota
	srcY
	srcGray
	srcR
	srcG
	srcB
	srcGabor
)

// op is the operation applied to a source plane.
type op uint8

const (
	opValue op = iota
	opDx
	opDy
	opDxx
	opDyy
)

// plane describes one expanded feature plane.
type plane struct {
	src   source
	op    op
	gabor int // plane index v·8+u when src is srcGabor
}

// Name tables, read-only after package initialisation.
var (
	// planeNames lists the names of the single planes in the order of the
	// documentation, for error messages.
	planeNames []string
	// planes maps the name of a single plane to its definition.
	planes = map[string]plane{}
	// groups maps a group or preset name to the names it expands to.
	groups = map[string][]string{}
	// groupNames lists the group names, and presetNames the preset names,
	// in documentation order.
	groupNames  []string
	presetNames = []string{"texture", "face", "reid"}
	// validNames is the list of accepted names for error messages.
	validNames string
)

func init() {
	add := func(name string, p plane) {
		planeNames = append(planeNames, name)
		planes[name] = p
	}
	group := func(name string, members ...string) {
		groupNames = append(groupNames, name)
		groups[name] = members
	}
	add("x", plane{src: srcX})
	add("y", plane{src: srcY})
	for _, c := range []struct {
		name string
		src  source
	}{{"I", srcGray}, {"R", srcR}, {"G", srcG}, {"B", srcB}} {
		add(c.name, plane{src: c.src})
		add(c.name+"x", plane{src: c.src, op: opDx})
		add(c.name+"y", plane{src: c.src, op: opDy})
		add(c.name+"xx", plane{src: c.src, op: opDxx})
		add(c.name+"yy", plane{src: c.src, op: opDyy})
		group(c.name+"'", c.name+"x", c.name+"y")
		group(c.name+"''", c.name+"xx", c.name+"yy")
	}
	all := make([]string, gabor.NumPlanes)
	for v := range gabor.NumScales {
		for u := range gabor.NumOrientations {
			i := gabor.Index(v, u)
			all[i] = gabor.Name(v, u)
			planes[all[i]] = plane{src: srcGabor, gabor: i}
		}
	}
	group("gabor", all...)
	groups["texture"] = []string{"I", "Ix", "Iy", "Ixx", "Iyy"}
	groups["face"] = []string{"I", "x", "y", "gabor"}
	groups["reid"] = []string{"x", "y", "R", "G", "B", "R'", "G'", "B'", "R''", "G''", "B''"}

	validNames = fmt.Sprintf("valid names: %s, %s (v = 0..%d, u = 0..%d); groups: %s; presets: %s",
		strings.Join(planeNames, ", "), "G_v<v>_u<u>", gabor.NumScales-1, gabor.NumOrientations-1,
		strings.Join(groupNames, ", "), strings.Join(presetNames, ", "))
}

// Set is an ordered list of feature planes: the per-pixel feature vector
// F(x, y) of a covariance descriptor. It is immutable and safe for
// concurrent use.
type Set struct {
	names  []string
	planes []plane
	str    string

	needGray bool
	// colour names the first plane that reads R, G or B, empty if none.
	colour string
	// bank is the Gabor bank, nil when the set has no Gabor plane;
	// gaborOut[i] is the index in the set of Gabor plane i, or −1.
	bank     *gabor.Bank
	gaborOut [gabor.NumPlanes]int
	border   gabor.Border
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
		return nil, fmt.Errorf("features: empty feature list; %s", validNames)
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
		return nil, fmt.Errorf("features: empty feature list; %s", validNames)
	}
	s := new(Set)
	from := make(map[string]string) // expanded name -> the name it came from
	for i := range s.gaborOut {
		s.gaborOut[i] = -1
	}
	var expand func(name, origin string) error
	expand = func(name, origin string) error {
		if members, ok := groups[name]; ok {
			for _, m := range members {
				if err := expand(m, origin); err != nil {
					return err
				}
			}
			return nil
		}
		p, ok := planes[name]
		if !ok {
			return fmt.Errorf("features: unknown feature %q; %s", name, validNames)
		}
		if prev, dup := from[name]; dup {
			if prev == name && origin == name {
				return fmt.Errorf("features: duplicate feature %q", name)
			}
			return fmt.Errorf("features: duplicate feature %q (from %q and %q)", name, prev, origin)
		}
		from[name] = origin
		switch p.src {
		case srcGray:
			s.needGray = true
		case srcR, srcG, srcB:
			if s.colour == "" {
				s.colour = name
			}
		case srcGabor:
			s.needGray = true
			s.gaborOut[p.gabor] = len(s.planes)
		}
		s.names = append(s.names, name)
		s.planes = append(s.planes, p)
		return nil
	}
	for i, n := range names {
		if n == "" {
			return nil, fmt.Errorf("features: empty name at position %d of %d; %s", i+1, len(names), validNames)
		}
		if err := expand(n, n); err != nil {
			return nil, err
		}
	}
	for _, k := range s.gaborOut {
		if k >= 0 {
			if err := s.setBank(gabor.ZeroPad); err != nil {
				return nil, err
			}
			break
		}
	}
	s.setString()
	return s, nil
}

// setBank gives s a Gabor bank with border b.
func (s *Set) setBank(b gabor.Border) error {
	bank, err := gabor.NewBank(gabor.Params{Border: b})
	if err != nil {
		return fmt.Errorf("features: %w", err)
	}
	s.bank, s.border = bank, b
	return nil
}

// setString sets the canonical form: the names, and the Gabor border when
// there are Gabor planes. Naming the border even at its default keeps
// cache keys and metadata unambiguous across covpipe versions whose
// defaults differ.
func (s *Set) setString() {
	s.str = strings.Join(s.names, ",")
	if s.bank != nil {
		s.str += ";" + gaborBorderKey + "=" + s.border.String()
	}
}

// WithGaborBorder returns a copy of s whose Gabor planes use border b. It
// returns an error for a set without Gabor planes, where the border would
// silently do nothing.
func (s *Set) WithGaborBorder(b gabor.Border) (*Set, error) {
	if s.bank == nil {
		return nil, fmt.Errorf("features: %s=%v given, but %q has no Gabor planes", gaborBorderKey, b, strings.Join(s.names, ","))
	}
	c := *s
	if err := c.setBank(b); err != nil {
		return nil, err
	}
	c.setString()
	return &c, nil
}

// HasGabor reports whether the set has Gabor planes.
func (s *Set) HasGabor() bool { return s.bank != nil }

// GaborBorder returns the border extension of the Gabor planes (ZeroPad,
// the default, for a set without them).
func (s *Set) GaborBorder() gabor.Border { return s.border }

// Names returns the expanded plane names in order; its length is the
// descriptor dimension d. The slice is a copy.
func (s *Set) Names() []string { return append([]string(nil), s.names...) }

// Dim returns the number of planes d, the side of the d×d covariance
// descriptor.
func (s *Set) Dim() int { return len(s.planes) }

// NeedsColor reports whether the set reads the colour planes R, G, B, so
// that images must be loaded with imageio.Options.Color.
func (s *Set) NeedsColor() bool { return s.colour != "" }

// String returns the canonical form of the set: its expanded names joined
// by commas without spaces, for example "I,Ix,Iy,Ixx,Iyy", followed for a
// set with Gabor planes by its border, ";gabor-border=zero". Parse of it
// gives the same set; it identifies the features in metadata and cache keys.
func (s *Set) String() string { return s.str }
