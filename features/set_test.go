package features_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/gabor"
)

func mustParse(tb testing.TB, spec string) *features.Set {
	tb.Helper()
	s, err := features.Parse(spec)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", spec, err)
	}
	return s
}

// gaborNames is the gabor package's plane order, built from gabor.Name.
func gaborNames() []string {
	var names []string
	for v := range gabor.NumScales {
		for u := range gabor.NumOrientations {
			names = append(names, gabor.Name(v, u))
		}
	}
	return names
}

var reid17 = []string{"x", "y", "R", "G", "B", "Rx", "Ry", "Gx", "Gy", "Bx", "By", "Rxx", "Ryy", "Gxx", "Gyy", "Bxx", "Byy"}

func TestParse(t *testing.T) {
	face := append([]string{"I", "x", "y"}, gaborNames()...)
	for _, tc := range []struct {
		spec      string
		want      []string
		needColor bool
	}{
		{"texture", []string{"I", "Ix", "Iy", "Ixx", "Iyy"}, false},
		{"I,Ix,Iy,Ixx,Iyy", []string{"I", "Ix", "Iy", "Ixx", "Iyy"}, false},
		{" I ,\tIx,Iy , Ixx,Iyy\n", []string{"I", "Ix", "Iy", "Ixx", "Iyy"}, false},
		{"face", face, false},
		{"I, x, y, gabor", face, false},
		{"reid", reid17, true},
		{"x, y, R, G, B, R', G', B', R'', G'', B''", reid17, true},
		{strings.Join(reid17, ","), reid17, true},
		{"texture,x,y", []string{"I", "Ix", "Iy", "Ixx", "Iyy", "x", "y"}, false},
		{"y,x", []string{"y", "x"}, false},
		{"I'', I'", []string{"Ixx", "Iyy", "Ix", "Iy"}, false},
		{"G_v2_u5, I, G_v0_u0", []string{"G_v2_u5", "I", "G_v0_u0"}, false},
		{"G", []string{"G"}, true},
		{"Bxx", []string{"Bxx"}, true},
	} {
		s, err := features.Parse(tc.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if got := s.Names(); !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q).Names() = %v, want %v", tc.spec, got, tc.want)
		}
		if s.Dim() != len(tc.want) {
			t.Errorf("Parse(%q).Dim() = %d, want %d", tc.spec, s.Dim(), len(tc.want))
		}
		if s.NeedsColor() != tc.needColor {
			t.Errorf("Parse(%q).NeedsColor() = %v, want %v", tc.spec, s.NeedsColor(), tc.needColor)
		}
		want := strings.Join(tc.want, ",")
		if s.HasGabor() {
			want += ";gabor-border=zero"
		}
		if s.String() != want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.spec, s.String(), want)
		}
		// The canonical form parses to the same set, and New agrees with Parse.
		if again := mustParse(t, s.String()); !slices.Equal(again.Names(), tc.want) {
			t.Errorf("Parse(%q) of String() = %v, want %v", s.String(), again.Names(), tc.want)
		}
		n, err := features.New(tc.want)
		if err != nil || n.String() != s.String() {
			t.Errorf("New(%v) = %v, %v; want %s", tc.want, n, err, s)
		}
	}
}

func TestGaborBorderOption(t *testing.T) {
	for _, tc := range []struct {
		spec, border string
		want         gabor.Border
		str          string // suffix of String()
	}{
		{"face", "", gabor.ZeroPad, ";gabor-border=zero"},
		{"face;gabor-border=symmetric", "", gabor.Symmetric, ";gabor-border=symmetric"},
		{" I, x, y, gabor ; gabor-border = zero ", "", gabor.ZeroPad, ";gabor-border=zero"},
		{"face", "symmetric", gabor.Symmetric, ";gabor-border=symmetric"},
		{"G_v0_u0", "zero", gabor.ZeroPad, "G_v0_u0;gabor-border=zero"},
	} {
		s, err := features.ParseWithGaborBorder(tc.spec, tc.border)
		if err != nil {
			t.Errorf("ParseWithGaborBorder(%q, %q): %v", tc.spec, tc.border, err)
			continue
		}
		if s.GaborBorder() != tc.want || !strings.HasSuffix(s.String(), tc.str) {
			t.Errorf("ParseWithGaborBorder(%q, %q) = border %v, %q; want %v, ...%s", tc.spec, tc.border, s.GaborBorder(), s.String(), tc.want, tc.str)
		}
		if again := mustParse(t, s.String()); again.String() != s.String() || again.GaborBorder() != s.GaborBorder() {
			t.Errorf("Parse(%q) = %q, border %v", s.String(), again, again.GaborBorder())
		}
	}
	for _, tc := range []struct{ spec, border, want string }{
		{"face;gabor-border=zero", "symmetric", "given twice"},
		{"face", "reflect", `unknown border "reflect"`},
		{"texture", "zero", "has no Gabor planes"},
	} {
		if _, err := features.ParseWithGaborBorder(tc.spec, tc.border); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseWithGaborBorder(%q, %q) error %v, want one containing %q", tc.spec, tc.border, err, tc.want)
		}
	}
	// WithGaborBorder leaves the receiver as it was.
	zero := mustParse(t, "face")
	sym, err := zero.WithGaborBorder(gabor.Symmetric)
	if err != nil || zero.GaborBorder() != gabor.ZeroPad || sym.GaborBorder() != gabor.Symmetric {
		t.Errorf("WithGaborBorder: %v; receiver %v, result %v", err, zero.GaborBorder(), sym.GaborBorder())
	}
}

func TestPresetDims(t *testing.T) {
	for _, tc := range []struct {
		preset string
		dim    int
	}{{"texture", 5}, {"face", 43}, {"reid", 17}} {
		if d := mustParse(t, tc.preset).Dim(); d != tc.dim {
			t.Errorf("%s: Dim() = %d, want %d", tc.preset, d, tc.dim)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string // substrings of the error message
	}{
		{"", []string{"empty feature list", "valid names"}},
		{" \t", []string{"empty feature list"}},
		{"I,,Ix", []string{"empty name at position 2 of 3"}},
		{"I,", []string{"empty name at position 2 of 2"}},
		{"foo", []string{`unknown feature "foo"`, "valid names: x, y, I, Ix, Iy, Ixx, Iyy, R,", "Byy", "G_v<v>_u<u>", "I', I''", "gabor", "presets: texture, face, reid"}},
		{"i", []string{`unknown feature "i"`}},
		{"Texture", []string{`unknown feature "Texture"`}},
		{"I x", []string{`unknown feature "I x"`}},
		{"G_v5_u0", []string{`unknown feature "G_v5_u0"`}},
		{"G_v0_u8", []string{`unknown feature "G_v0_u8"`}},
		{"R'''", []string{`unknown feature "R'''"`}},
		{"I,I", []string{`duplicate feature "I"`}},
		{"texture,Ix", []string{`duplicate feature "Ix" (from "texture" and "Ix")`}},
		{"face,G_v0_u3", []string{`duplicate feature "G_v0_u3" (from "face" and "G_v0_u3")`}},
		{"Rx,R'", []string{`duplicate feature "Rx" (from "Rx" and "R'")`}},
		{"reid,x", []string{`duplicate feature "x"`}},
		{"gabor,gabor", []string{`duplicate feature "G_v0_u0"`}},
		{"face;gabor-border=mirror", []string{`unknown border "mirror"`, "zero or symmetric"}},
		{"face;border=zero", []string{`unknown option "border=zero"`, "gabor-border=zero|symmetric"}},
		{"face;gabor-border", []string{`unknown option "gabor-border"`}},
		{"texture;gabor-border=symmetric", []string{"has no Gabor planes"}},
		{";gabor-border=zero", []string{"empty feature list"}},
	} {
		s, err := features.Parse(tc.spec)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", tc.spec, s)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q) error %q does not contain %q", tc.spec, err, w)
			}
		}
	}
	if _, err := features.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
	if _, err := features.New([]string{" I"}); err == nil {
		t.Error(`New([" I"]) succeeded; New takes exact names`)
	}
}

func TestNamesIsACopy(t *testing.T) {
	s := mustParse(t, "texture")
	s.Names()[0] = "changed"
	if s.Names()[0] != "I" || s.String() != "I,Ix,Iy,Ixx,Iyy" {
		t.Errorf("modifying Names() changed the set: %v", s.Names())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"texture", "face", "reid", "I, Ix", "x,y,R',G'',B'", "G_v1_u2,I", "", ",", "I,I", "gabor,x", "\u00a0I"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := features.Parse(spec)
		if err != nil {
			if s != nil {
				t.Fatalf("Parse(%q) returned a set and error %v", spec, err)
			}
			return
		}
		names := s.Names()
		if len(names) == 0 || len(names) != s.Dim() {
			t.Fatalf("Parse(%q): %d names, Dim %d", spec, len(names), s.Dim())
		}
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Fatalf("Parse(%q): duplicate %q in %v", spec, n, names)
			}
			seen[n] = true
		}
		again, err := features.Parse(s.String())
		if err != nil || again.String() != s.String() {
			t.Fatalf("Parse(%q) of String() = %v, %v", s.String(), again, err)
		}
	})
}

func ExampleParse() {
	for _, spec := range []string{"texture", "x, y, R, G, B, R', G', B', R'', G'', B''", "face", "I, Ixx, colour"} {
		s, err := features.Parse(spec)
		if err != nil {
			msg, _, _ := strings.Cut(err.Error(), ";") // the rest lists the valid names
			fmt.Println(msg)
			continue
		}
		names := s.Names()
		fmt.Printf("d=%d colour=%v %s ... %s\n", s.Dim(), s.NeedsColor(), strings.Join(names[:min(5, len(names))], ","), names[len(names)-1])
	}
	// Output:
	// d=5 colour=false I,Ix,Iy,Ixx,Iyy ... Iyy
	// d=17 colour=true x,y,R,G,B ... Byy
	// d=43 colour=false I,x,y,G_v0_u0,G_v0_u1 ... G_v4_u7
	// features: unknown feature "colour"
}
