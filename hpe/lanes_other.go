//go:build !amd64 || purego

package hpe

// terms is termsGo where there is no vector kernel.
func (l *lanes) terms(ell, z []float64) float64 { return l.termsGo(ell, z) }

// scatter is scatterGo where there is no vector kernel.
func scatter(acc []float64, idx []int, ones []float64, r float64) { scatterGo(acc, idx, ones, r) }
