package param

import (
	"strings"
	"testing"
)

func TestFloatsCheck(t *testing.T) {
	for _, tc := range []struct {
		f   Floats
		err string
	}{
		{Floats{1, 2}, ""},
		{nil, "sigma is required"},
		{Floats{1, 1, 2}, "lists 1 twice"},
		{Floats{1, 2, 1}, "lists 1 twice"},
		{Floats{2, 1, 1}, "lists 1 twice"},
		{Floats{0}, "want finite and > 0"},
		{Floats{-1}, "want finite and > 0"},
	} {
		err := tc.f.Check("sigma", true, 0, false)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v.Check: %v, want %q", tc.f, err, tc.err)
		}
	}
}
