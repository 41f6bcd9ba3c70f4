package memlimit

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestCheck checks that estimates within the limit pass, that over it
// the error names the key whose estimates sum to the most, its bytes, the
// total and the limit, and wraps ErrMemory, and that a negative limit is
// an error.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int64
		raise string
		es    []Estimate
		want  string // "" for nil
	}{
		{"empty", 0, "", nil, ""},
		{"at the limit", 1 << 10, "", []Estimate{{"a", "a", 512}, {"b", "b", 512}}, ""},
		{"one key", 0, "--max-memory", []Estimate{{"--iters", "10 iterations", 5 << 30}},
			"--iters: 10 iterations, about 5 GiB, over the memory limit of 4 GiB: lower --iters, or raise the limit (--max-memory)"},
		{"summed by key", 1 << 20, "", []Estimate{{"a", "a's", 600 << 10}, {"b", "b's", 300 << 10}, {"b", "more of b", 400 << 10}},
			"b: b's, about 700 KiB; about 1.27 MiB in all, over the memory limit of 1 MiB: lower b"},
		{"overflowing product", 0, "", []Estimate{{"folds", "folds", math.Inf(1)}}, "folds: folds, about +Inf EiB"},
		{"NaN", 0, "", []Estimate{{"n", "n", math.NaN()}}, "n: n, about NaN bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.limit, tc.raise, tc.es...)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.Is(err, ErrMemory) || !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check: %v\nwant %q", err, tc.want)
			}
		})
	}
	if err := Check(-1, ""); err == nil || errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "memory limit -1 bytes: want >= 0 (0: 4 GiB)") {
		t.Errorf("Check(-1): %v", err)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		b    float64
		want string
	}{{0, "0 bytes"}, {1023, "1023 bytes"}, {1024, "1 KiB"}, {1536, "1.5 KiB"}, {626.3 * (1 << 30), "626 GiB"}, {1 << 62, "4 EiB"}} {
		if got := Format(tc.b); got != tc.want {
			t.Errorf("Format(%g) = %q, want %q", tc.b, got, tc.want)
		}
	}
}
