package tsc

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/spd"
)

// TestCancel checks that Solve and SolveTo return an error wrapping
// context.Canceled when their context is cancelled before the call (on a
// tiny problem) or while they run (on a dictionary whose Newton steps take
// far longer than the delay), on every atom and by column generation.
func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, d       int
		workingSet int
		cancelled  bool
	}{
		{"tiny", 4, 3, 0, true},
		{"large, every atom", 400, 20, -1, false},
		{"large, working sets", 400, 20, 150, false},
	} {
		atoms, query := tinyProblem(t, tc.n, tc.d, 17)
		set, err := spd.NewSet(atoms)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewCoder(set, Options{Lambda: 0.01, Tol: 1e-12, WorkingSet: tc.workingSet})
		if err != nil {
			t.Fatal(err)
		}
		ctx := func() context.Context {
			if tc.cancelled {
				return canceltest.Cancelled(t)
			}
			return canceltest.Soon(t)
		}
		_, _, err = c.Solve(ctx(), query)
		canceltest.Check(t, "Solve, "+tc.name, err)
		_, err = c.SolveTo(ctx(), make([]float64, tc.n), query, c.NewWorkspace())
		canceltest.Check(t, "SolveTo, "+tc.name, err)
	}
}
