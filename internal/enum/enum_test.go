package enum

import "testing"

type color uint8

const (
	red color = iota
	green
	blue
)

var colorNames = Names[color]{red: "red", blue: "blue"}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		v    color
		name string
	}{
		{red, "red"},
		{green, "color(1)"},
		{blue, "blue"},
		{7, "color(7)"},
	} {
		if got := colorNames.String(tc.v); got != tc.name {
			t.Errorf("String(%d) = %q, want %q", tc.v, got, tc.name)
		}
		v, ok := colorNames.Parse(tc.name)
		if want := tc.v == red || tc.v == blue; ok != want || (ok && v != tc.v) {
			t.Errorf("Parse(%q) = %d, %v", tc.name, v, ok)
		}
	}
	for _, s := range []string{"", "Red", "green"} {
		if v, ok := colorNames.Parse(s); ok {
			t.Errorf("Parse(%q) = %d, want no value", s, v)
		}
	}
	type level int
	if got := (Names[level]{"low"}).String(-1); got != "level(-1)" {
		t.Errorf("String(-1) = %q", got)
	}
}
