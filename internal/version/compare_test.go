package version

import "testing"

func TestNewer(t *testing.T) {
	for _, tc := range []struct {
		v         string
		newer, ok bool
	}{
		{Number, false, true},
		{Number + " (rev abc1234, modified)", false, true},
		{"0.0.9", false, true},
		{"0.1.1", true, true},
		{"0.10.0", true, true},
		{"1.0.0 (rev 1234567)", true, true},
		{"", false, false},
		{"1.0", false, false},
		{"1.0.x", false, false},
		{"1.0.-1", false, false},
		{"01.0.0", false, false},
	} {
		newer, err := Newer(tc.v)
		if newer != tc.newer || (err == nil) != tc.ok {
			t.Errorf("Newer(%q) = %v, %v; want %v, ok %v", tc.v, newer, err, tc.newer, tc.ok)
		}
	}
}
