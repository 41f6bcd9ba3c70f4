package gabor_test

import (
	"fmt"
	"testing"

	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/internal/cputime"
)

func benchMagnitudes(b *testing.B, p gabor.Params, w, h int) {
	bank := mustBank(b, p)
	ws, err := bank.NewWorkspace(w, h)
	if err != nil {
		b.Fatal(err)
	}
	img := randomImage(w, h, 1)
	dst := newPlanes(w * h)
	b.ReportAllocs()
	cpu := cputime.Start()
	for b.Loop() {
		if err := bank.MagnitudesTo(dst, img, w, h, ws); err != nil {
			b.Fatal(err)
		}
	}
	cpu.ReportPerOp(b)
}

// BenchmarkMagnitudes64 is the 64×64 face crop of the paper with the
// default bank (ZeroPad, Auto).
func BenchmarkMagnitudes64(b *testing.B) { benchMagnitudes(b, gabor.Params{}, 64, 64) }

// BenchmarkMagnitudes32 is the 32×32 FERET copy with the default bank.
func BenchmarkMagnitudes32(b *testing.B) { benchMagnitudes(b, gabor.Params{}, 32, 32) }

// BenchmarkEngines compares the engines per border and size.
func BenchmarkEngines(b *testing.B) {
	for _, border := range []gabor.Border{gabor.Symmetric, gabor.ZeroPad} {
		for _, m := range []gabor.Method{gabor.Direct, gabor.FFT} {
			for _, n := range []int{32, 64, 128} {
				b.Run(fmt.Sprintf("%v/%v/%d", border, m, n), func(b *testing.B) {
					benchMagnitudes(b, gabor.Params{Border: border, Method: m}, n, n)
				})
			}
		}
	}
}

// BenchmarkMagnitudes64Parallel measures throughput with one workspace per
// goroutine (GOMAXPROCS goroutines); ns/op is wall time per image.
func BenchmarkMagnitudes64Parallel(b *testing.B) {
	const w, h = 64, 64
	bank := mustBank(b, gabor.Params{})
	img := randomImage(w, h, 1)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ws, err := bank.NewWorkspace(w, h)
		if err != nil {
			b.Error(err)
			return
		}
		dst := newPlanes(w * h)
		for pb.Next() {
			if err := bank.MagnitudesTo(dst, img, w, h, ws); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
