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
}

// Parse returns the set of the comma-separated names in spec, with white
// space around each name ignored; see New. For example
//
//	I, Ix, Iy, Ixx, Iyy
//	face
//	x,y,R,G,B,R',G',B',R'',G'',B''
func Parse(spec string) (*Set, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, fmt.Errorf("features: empty feature list; %s", validNames)
	}
	names := strings.Split(spec, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return New(names)
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
			bank, err := gabor.NewBank(gabor.Params{})
			if err != nil {
				return nil, fmt.Errorf("features: %w", err)
			}
			s.bank = bank
			break
		}
	}
	s.str = strings.Join(s.names, ",")
	return s, nil
}

// Names returns the expanded plane names in order; its length is the
// descriptor dimension d. The slice is a copy.
func (s *Set) Names() []string { return append([]string(nil), s.names...) }

// Dim returns the number of planes d, the side of the d×d covariance
// descriptor.
func (s *Set) Dim() int { return len(s.planes) }

// NeedsColor reports whether the set reads the colour planes R, G, B, so
// that images must be loaded with imageio.Options.Color.
func (s *Set) NeedsColor() bool { return s.colour != "" }

// String returns the canonical form of the set, its expanded names joined
// by commas without spaces, for example "I,Ix,Iy,Ixx,Iyy". Parse of it
// gives the same set; it identifies the features in metadata and cache keys.
func (s *Set) String() string { return s.str }
