package features

import (
	"strings"
	"testing"
)

// TestNameTableErrors checks that a registry with a name defined twice, a
// group reaching outside its family or a preset naming nothing known is
// rejected, so that a new family cannot shadow another's names.
func TestNameTableErrors(t *testing.T) {
	a := family{planes: []string{"a", "b"}, groups: []group{{"ab", []string{"a", "b"}}}}
	c := family{planes: []string{"c"}}
	for _, tc := range []struct {
		name    string
		fams    []family
		presets []group
		want    string
	}{
		{"plane twice", []family{a, {planes: []string{"b"}}}, nil, `plane "b" defined twice`},
		{"group is a plane", []family{a, {planes: []string{"c"}, groups: []group{{"a", []string{"c"}}}}}, nil, `group "a" defined twice`},
		{"group outside its family", []family{a, {planes: []string{"c"}, groups: []group{{"ac", []string{"a", "c"}}}}}, nil, `group "ac" names "a"`},
		{"preset is a group", []family{a, c}, []group{{"ab", []string{"c"}}}, `preset "ab" defined twice`},
		{"preset of unknown", []family{a, c}, []group{{"p", []string{"ab", "d"}}}, `preset "p" names "d"`},
	} {
		if _, err := newNameTable(tc.fams, tc.presets); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	tab, err := newNameTable([]family{a, c, {planes: []string{"d", "e"}, listed: "d or e"}}, []group{{"p", []string{"c", "ab"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "valid names: a, b, c, d or e; groups: ab; presets: p"; tab.valid != want {
		t.Errorf("valid names %q, want %q", tab.valid, want)
	}
	if ref := tab.planes["e"]; ref != (planeRef{2, 1}) {
		t.Errorf("plane e at %v, want family 2, plane 1", ref)
	}
}
