package symm

import "testing"

// TestMirror checks every entry against its transpose for sizes around the
// tile side and a padded stride, and that the upper triangle and the
// padding are untouched.
func TestMirror(t *testing.T) {
	for _, n := range []int{0, 1, 2, 31, 32, 33, 64, 70, 100} {
		for _, pad := range []int{0, 3} {
			stride := n + pad
			a := make([]float64, n*stride)
			for i := range n {
				for j := range stride {
					switch {
					case j >= n:
						a[i*stride+j] = -1 // padding
					case j >= i:
						a[i*stride+j] = float64(1000*i + j)
					default:
						a[i*stride+j] = -2 // to be overwritten
					}
				}
			}
			Mirror(a, n, stride)
			for i := range n {
				for j := range stride {
					var want float64
					switch {
					case j >= n:
						want = -1
					case j >= i:
						want = float64(1000*i + j)
					default:
						want = float64(1000*j + i)
					}
					if got := a[i*stride+j]; got != want {
						t.Fatalf("n = %d, stride %d: a[%d][%d] = %v, want %v", n, stride, i, j, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkMirror mirrors the Gram matrix of a 1,000-item training set
// (the scale protocol's).
func BenchmarkMirror(b *testing.B) {
	const n = 1000
	a := make([]float64, n*n)
	for b.Loop() {
		Mirror(a, n, n)
	}
}
