package datasets

import (
	"errors"
	"maps"
	"regexp"
	"strings"
	"testing"
)

// TestMetaParsers checks the metadata RegexpMeta's parser and MARSMeta
// read from names, and that they refuse names not of their pattern.
func TestMetaParsers(t *testing.T) {
	regexpMeta := RegexpMeta(regexp.MustCompile(`^(?P<subject>[a-z]+)_(\d+)(?:_(?P<take>\d+))?\.png$`))
	for _, tc := range []struct {
		parser string
		parse  MetaParser
		name   string
		want   map[string]string
	}{
		{"RegexpMeta", regexpMeta, "anna_12_3.png", map[string]string{"subject": "anna", "take": "3"}},
		{"RegexpMeta", regexpMeta, "anna_12.png", map[string]string{"subject": "anna"}}, // optional group did not take part
		{"RegexpMeta", regexpMeta, "Anna_12.png", nil},
		{"MARSMeta", MARSMeta, "0003C4T0003F001.jpg", map[string]string{"pid": "0003", "camera": "4", "tracklet": "0003", "frame": "001"}},
		{"MARSMeta", MARSMeta, "1500C6T0012F123.JPG", map[string]string{"pid": "1500", "camera": "6", "tracklet": "0012", "frame": "123"}},
		{"MARSMeta", MARSMeta, "00-1C1T0001F001.jpg", map[string]string{"pid": "00-1", "camera": "1", "tracklet": "0001", "frame": "001"}},
		{"MARSMeta", MARSMeta, "0003C4T0003.jpg", nil},
		{"MARSMeta", MARSMeta, "0003C4T0003F001", nil},
		{"MARSMeta", MARSMeta, "0003c4t0003f001.jpg", nil},
		{"MARSMeta", MARSMeta, "photo.jpg", nil},
	} {
		got, ok := tc.parse(tc.name)
		if ok != (tc.want != nil) || !maps.Equal(got, tc.want) {
			t.Errorf("%s(%q) = %v, %v; want %v", tc.parser, tc.name, got, ok, tc.want)
		}
	}
}

func TestParseFERETName(t *testing.T) {
	for _, tc := range []struct {
		name, subject, pose string
		ok                  bool
	}{
		{"00001ba.png", "00001", "ba", true},
		{"01013bk.PNG", "01013", "bk", true},
		{"00200fa.tif", "00200", "fa", true},
		{"0001ba.png", "", "", false},   // 4-digit id
		{"000001ba.png", "", "", false}, // 6-digit id
		{"00001BA.png", "", "", false},  // upper-case pose
		{"00001b.png", "", "", false},
		{"00001bad.png", "", "", false},
		{"00001ba", "", "", false}, // no extension
		{"00001ba.png.bak", "", "", false},
		{"x00001ba.png", "", "", false},
		{"", "", "", false},
	} {
		s, p, err := ParseFERETName(tc.name)
		if tc.ok != (err == nil) || s != tc.subject || p != tc.pose {
			t.Errorf("ParseFERETName(%q) = %q, %q, %v; want %q, %q, ok %v", tc.name, s, p, err, tc.subject, tc.pose, tc.ok)
		}
		if err != nil && (!errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.name)) {
			t.Errorf("ParseFERETName(%q) error %q does not wrap ErrFormat or name the file", tc.name, err)
		}
	}
}

func TestParseBrodatzName(t *testing.T) {
	for _, tc := range []struct {
		name, label string
		n           int
		ok          bool
	}{
		{"D1.gif", "D1", 1, true},
		{"D112.GIF", "D112", 112, true},
		{"D12.png", "D12", 12, true},
		{"D0.gif", "", 0, false},
		{"D012.gif", "", 0, false},
		{"d12.gif", "", 0, false},
		{"D.gif", "", 0, false},
		{"D12a.gif", "", 0, false},
		{"D12", "", 0, false},
		{"texture.gif", "", 0, false},
	} {
		l, n, err := ParseBrodatzName(tc.name)
		if tc.ok != (err == nil) || l != tc.label || n != tc.n {
			t.Errorf("ParseBrodatzName(%q) = %q, %d, %v; want %q, %d, ok %v", tc.name, l, n, err, tc.label, tc.n, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrFormat) {
			t.Errorf("ParseBrodatzName(%q) error does not wrap ErrFormat", tc.name)
		}
	}
}

func FuzzParseFERETName(f *testing.F) {
	for _, s := range []string{"00001ba.png", "1ba.png", "00001ba", "00001bá.png"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s, p, err := ParseFERETName(name)
		if err != nil {
			return
		}
		if len(s) != 5 || len(p) != 2 || !strings.HasPrefix(name, s+p+".") {
			t.Fatalf("ParseFERETName(%q) = %q, %q", name, s, p)
		}
	})
}

func FuzzParseBrodatzName(f *testing.F) {
	for _, s := range []string{"D1.gif", "D0.gif", "D99999999999999999999.gif"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		l, n, err := ParseBrodatzName(name)
		if err != nil {
			return
		}
		if n < 1 || !strings.HasPrefix(name, l+".") {
			t.Fatalf("ParseBrodatzName(%q) = %q, %d", name, l, n)
		}
	})
}

func FuzzMARSMeta(f *testing.F) {
	for _, s := range []string{"0003C4T0003F001.jpg", "00-1C1T0001F001.jpg", "C1T1F1.jpg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		m, ok := MARSMeta(name)
		if !ok {
			return
		}
		if !strings.HasPrefix(name, m["pid"]+"C"+m["camera"]+"T"+m["tracklet"]+"F"+m["frame"]+".") {
			t.Fatalf("MARSMeta(%q) = %v does not spell the name", name, m)
		}
	})
}
