package roofline

// sink keeps the scalar loop's sums alive.
var sink float64

// scalarLoop runs n iterations of eight independent scalar multiply-adds
// and returns their FLOP (16 an iteration).
func scalarLoop(n int) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	a, c := 1.0000001, 1e-9
	for range n {
		s0 = s0*a + c
		s1 = s1*a + c
		s2 = s2*a + c
		s3 = s3*a + c
		s4 = s4*a + c
		s5 = s5*a + c
		s6 = s6*a + c
		s7 = s7*a + c
	}
	sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
	return 16 * float64(n)
}
