package lpp

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
)

// TestCancel checks that Fit returns an error wrapping context.Canceled,
// and no projection, when its context is cancelled before the call (on a
// tiny problem) or while it runs (on a Gram matrix whose
// eigendecompositions take far longer than the delay).
func TestCancel(t *testing.T) {
	o := Options{Dims: 5, Supervised: true, Center: true}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		n    int
	}{{"tiny", canceltest.Cancelled(t), 12}, {"large", nil, 1200}} {
		x, labels := blobs(3, tc.n, 10, 2, 8)
		k := sym(rbfKernel(x, x, 0.5))
		ctx := tc.ctx
		if ctx == nil {
			ctx = canceltest.Soon(t)
		}
		p, err := Fit(ctx, k, labels, o)
		canceltest.Check(t, tc.name, err)
		if p != nil {
			t.Errorf("%s: a projection came with the error", tc.name)
		}
	}
}
