package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// randomSPD returns n random d×d SPD matrices, row-major one after another.
func randomSPD(n, d int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]float64, 0, n*d*d)
	for range n {
		a := make([]float64, d*(d+2))
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range d {
			for j := range d {
				var s float64
				for k := range d + 2 {
					s += a[i*(d+2)+k] * a[j*(d+2)+k]
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// TestLearnEncodeRoundTrip learns a dictionary from a .npy file, encodes
// a describe folder with it, and checks the files against the library.
func TestLearnEncodeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.npy")
	data := randomSPD(40, 3, 1)
	if err := store.WriteNPY(train, []int{40, 3, 3}, data); err != nil {
		t.Fatal(err)
	}
	dict := filepath.Join(dir, "dict")
	stdout, stderr, err := runCLI(t, "learn", train, "--atoms", "6", "--iters", "3", "--sigma", "1", "--lambda-ratio", "0.2", "--seed", "4", "--keep-scale", "--out", dict)
	if err != nil {
		t.Fatalf("learn: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "learned 6 atoms of 3x3 from 40 matrices in 3 iterations") {
		t.Errorf("learn printed %q", stdout)
	}
	atoms, err := store.ReadMatrices(filepath.Join(dict, dictionary.AtomsFile))
	if err != nil || atoms.N != 6 || atoms.D != 3 {
		t.Fatalf("dictionary.npy: %+v, %v", atoms, err)
	}
	var log dictionary.Record
	b, _ := os.ReadFile(filepath.Join(dict, dictionary.RecordFile))
	if err := json.Unmarshal(b, &log); err != nil || len(log.History) != 3 || log.Sigma != 1 || log.Options() != (rsr.LassoOptions{LambdaRatio: 0.2}) || !log.KeepScale {
		t.Errorf("learn.json: %+v, %v", log, err)
	}
	// The same learning through the library gives the same atoms.
	set, _ := spd.NewSetFromData(3, randomSPD(40, 3, 1))
	want, err := rsr.FitDictionary(t.Context(), set, rsr.DictionaryOptions{Atoms: 6, Iters: 3, Kernel: spd.SteinKernel{Sigma: 1},
		Lasso: rsr.LassoOptions{LambdaRatio: 0.2}, Seed: 4, KeepScale: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want.Atoms.Data() {
		if atoms.Data[i] != v {
			t.Fatalf("dictionary.npy differs from rsr.FitDictionary at %d: %v vs %v", i, atoms.Data[i], v)
		}
	}

	// Encode a describe folder: codes, and its manifest carried over.
	src := imageFolder(t, 2)
	desc := filepath.Join(dir, "desc")
	if _, stderr, err := runCLI(t, "describe", src, "--features", "I,Ix,Iy", "--out", desc); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	queries, _ := store.ReadMatrices(desc)
	small := filepath.Join(dir, "dict3.npy")
	dictData := randomSPD(5, 3, 9)
	if err := store.WriteNPY(small, []int{5, 3, 3}, dictData); err != nil {
		t.Fatal(err)
	}
	codesDir := filepath.Join(dir, "codes")
	if _, stderr, err := runCLI(t, "encode", "--dict", small, "--sigma", "1", "--lambda", "0.01", "--out", codesDir, desc); err != nil {
		t.Fatalf("encode: %v\n%s", err, stderr)
	}
	got, err := readNPY2(filepath.Join(codesDir, dictionary.CodesFile))
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := spd.NewSetFromData(3, queries.Data)
	ds, _ := spd.NewSetFromData(3, dictData)
	lib, _, err := rsr.Encode(t.Context(), qs, ds, spd.SteinKernel{Sigma: 1}, rsr.LassoOptions{Lambda: 0.01, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := lib.Dims(); len(got) != r*c {
		t.Fatalf("codes.npy holds %d values, want %d×%d", len(got), r, c)
	}
	for i, v := range lib.RawMatrix().Data {
		if math.Abs(got[i]-v) > 0 {
			t.Fatalf("codes.npy differs from rsr.Encode at %d: %v vs %v", i, got[i], v)
		}
	}
	m1, _ := os.ReadFile(filepath.Join(desc, store.ManifestFile))
	m2, _ := os.ReadFile(filepath.Join(codesDir, store.ManifestFile))
	if string(m1) != string(m2) || len(m1) == 0 {
		t.Error("encode did not carry the manifest over")
	}
	// With a learn folder, σ and λ come from learn.json.
	if _, stderr, err := runCLI(t, "encode", "--dict", dict, "--out", filepath.Join(dir, "codes2"), train); err != nil {
		t.Fatalf("encode with a learn folder: %v\n%s", err, stderr)
	}
	var enc dictionary.CodesRecord
	b, _ = os.ReadFile(filepath.Join(dir, "codes2", dictionary.CodesLog))
	if err := json.Unmarshal(b, &enc); err != nil || enc.Sigma != 1 || enc.Options() != (rsr.LassoOptions{LambdaRatio: 0.2}) || enc.Samples != 40 || enc.Atoms != 6 {
		t.Errorf("encode.json: %+v, %v", enc, err)
	}
}

// TestSparsityRecorded checks that learn.json and encode.json record the
// sparsity weight the codes were solved with, the one given or learn's
// default, even λ = 0, and that encode takes a learn folder's.
func TestSparsityRecorded(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.npy")
	if err := store.WriteNPY(train, []int{12, 2, 2}, randomSPD(12, 2, 1)); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lambda", "0"}, `"lambda": 0,`},
		{[]string{"--lambda", "0.05"}, `"lambda": 0.05,`},
		{[]string{"--lambda-ratio", "0.3"}, `"lambda_ratio": 0.3,`},
		{nil, `"lambda_ratio": 0.1,`},
	} {
		dict, codes := filepath.Join(dir, fmt.Sprint("dict", i)), filepath.Join(dir, fmt.Sprint("codes", i))
		if _, stderr, err := runCLI(t, append([]string{"learn", train, "--atoms", "3", "--iters", "2", "--out", dict}, tc.args...)...); err != nil {
			t.Fatalf("learn %v: %v\n%s", tc.args, err, stderr)
		}
		if _, stderr, err := runCLI(t, "encode", train, "--dict", dict, "--out", codes); err != nil {
			t.Fatalf("encode %v: %v\n%s", tc.args, err, stderr)
		}
		for _, f := range []string{filepath.Join(dict, dictionary.RecordFile), filepath.Join(codes, dictionary.CodesLog)} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tc.want) || strings.Count(string(b), `"lambda`) != 1 {
				t.Errorf("%v: %s records the sparsity weight as\n%s\nwant %s only", tc.args, f, b, tc.want)
			}
		}
	}
}

// readNPY2 reads the values of a 2-D .npy file written by WriteNPY.
func readNPY2(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	hdr := int(b[8]) | int(b[9])<<8
	raw := b[10+hdr:]
	out := make([]float64, len(raw)/8)
	for i := range out {
		var u uint64
		for k := 7; k >= 0; k-- {
			u = u<<8 | uint64(raw[8*i+k])
		}
		out[i] = math.Float64frombits(u)
	}
	return out, nil
}

func TestLearnEncodeErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, shape []int, data []float64) string {
		p := filepath.Join(dir, name)
		if err := store.WriteNPY(p, shape, data); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.npy", []int{10, 2, 2}, randomSPD(10, 2, 1))
	dict3 := write("dict3.npy", []int{2, 3, 3}, randomSPD(2, 3, 2))
	ref3 := write("ref3.npy", []int{3, 3}, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	notSPDRef := write("notspd-ref.npy", []int{2, 2}, []float64{1, 2, 2, 1})
	flat := write("flat.npy", []int{8}, make([]float64, 8))
	nan := randomSPD(3, 2, 3)
	nan[5] = math.NaN()
	nanFile := write("nan.npy", []int{3, 2, 2}, nan)
	notSPD := randomSPD(3, 2, 4)
	copy(notSPD[8:], []float64{1, 2, 2, 1})
	notSPDFile := write("notspd.npy", []int{3, 2, 2}, notSPD)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"learn", good, "--atoms", "2"}, "--out DIR is required"},
		{[]string{"learn", good, "--out", out}, "--atoms N, the dictionary size, is required"},
		{[]string{"learn", good, "--atoms", "0", "--out", out}, "--atoms 0"},
		{[]string{"learn", "--atoms", "2", "--out", out}, "want one DESCRIPTORS"},
		{[]string{"learn", flat, "--atoms", "2", "--out", out}, "flat.npy: array of type \"<f8\", shape [8]"},
		{[]string{"learn", nanFile, "--atoms", "2", "--out", out}, "nan.npy: matrix 1: entry [0][1] = NaN"},
		{[]string{"learn", notSPDFile, "--atoms", "2", "--out", out}, "notspd.npy: matrix 2"},
		{[]string{"learn", filepath.Join(dir, "missing.npy"), "--atoms", "2", "--out", out}, "missing.npy"},
		{[]string{"learn", good, "--atoms", "11", "--out", out}, "N = 11 exceeds the 10 training samples"},
		{[]string{"learn", good, "--atoms", "2", "--init", "spectral", "--out", out}, `unknown dictionary initialisation "spectral"`},
		{[]string{"learn", good, "--atoms", "2", "--lambda", "0.1", "--lambda-ratio", "0.1", "--out", out}, "not both"},
		{[]string{"learn", good, "--atoms", "2", "--sigma", "0.3", "--out", out}, "sigma = 0.3"},
		// Sizes: at least one iteration, and none whose history would
		// exceed the memory limit; a ratio of 0 is not λ = 0.
		{[]string{"learn", good, "--atoms", "2", "--iters", "0", "--out", out}, "learn: --iters 0: want T >= 1 iterations"},
		{[]string{"learn", good, "--atoms", "2", "--iters", "1000000000", "--out", out}, "learn: --iters: 1000000000 iterations keep an entry each in learn.json's history, about 477 GiB, over the memory limit of 4 GiB: lower --iters"},
		{[]string{"learn", good, "--atoms", "2", "--lambda-ratio", "0", "--out", out}, "learn: --lambda-ratio 0: rsr: invalid input: lambda ratio = 0 must be in (0, 1); for λ = 0 (least squares) give --lambda 0"},
		{[]string{"encode", good, "--dict", good, "--lambda-ratio", "0", "--out", out}, "encode: --lambda-ratio 0: rsr: invalid input: lambda ratio = 0 must be in (0, 1); for λ = 0"},
		{[]string{"encode", good, "--dict", good, "--lambda-ratio", "1", "--out", out}, "encode: --lambda-ratio 1: "},
		{[]string{"encode", good, "--out", out}, "--dict DICT (a covpipe learn folder or a .npy file), --tangent (tangent-space vectors) or --model DIR (a covpipe fit folder) is required"},
		{[]string{"encode", good, "--dict", good, "--model", dir, "--out", out}, "give one of --dict, --tangent and --model"},
		{[]string{"encode", good, "--model", dir, "--sigma", "1", "--out", out}, "--sigma with --model: the model codes as it was fitted"},
		{[]string{"encode", good, "--model", filepath.Join(dir, "none"), "--out", out}, "none"},
		{[]string{"encode", good, "--dict", dict3, "--out", out}, "holds 3x3 atoms but " + good + " holds 2x2 matrices"},
		{[]string{"encode", nanFile, "--dict", good, "--out", out}, "nan.npy: matrix 1"},
		{[]string{"learn", good, "--atoms", "2", "--workers", "-4", "--out", out}, "learn: --workers -4, want >= 0 (0: all cores)"},
		{[]string{"encode", good, "--dict", good, "--workers", "-4", "--out", out}, "encode: --workers -4, want >= 0 (0: all cores)"},
		// Tangent vectors.
		{[]string{"encode", "--tangent", "--dict", good, "--out", out, good}, "give one of --dict, --tangent and --model"},
		{[]string{"encode", "--tangent", "--sigma", "1", "--out", out, good}, "--tangent takes no --sigma"},
		{[]string{"encode", "--reference", "mean", "--dict", good, "--out", out, good}, "--reference is for tangent vectors: give --tangent too"},
		{[]string{"encode", "--tangent", "--out", out}, "want one DESCRIPTORS"},
		{[]string{"encode", "--tangent", good}, "--out DIR is required"},
		{[]string{"encode", "--tangent", "--reference", "riemann", "--out", out, good}, "--reference: store: invalid input: open riemann: no such file or directory (want mean, identity, an encode --tangent folder or a .npy file)"},
		{[]string{"encode", "--tangent", "--reference", ref3, "--out", out, good}, "the reference " + ref3 + " is 3x3 but " + good + " holds 2x2 matrices"},
		{[]string{"encode", "--tangent", "--reference", notSPDRef, "--out", out, good}, "notspd-ref.npy: spd: matrix is not positive definite"},
		{[]string{"encode", "--tangent", "--reference", flat, "--out", out, good}, "flat.npy: array of shape [8], want a reference point of shape (d, d)"},
		{[]string{"encode", "--tangent", nanFile, "--out", out}, "nan.npy: matrix 1"},
		{[]string{"encode", "--tangent", "--workers", "-1", "--out", out, good}, "--workers -1"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error containing %q", tc.args, err, tc.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%v: failed run left %v", tc.args, entries)
		}
	}
}

// TestLearnTinyScales learns from SPD matrices scaled by 1e-130 to
// 1e-300, where LAPACK's own rescaling of the atom update's spectral
// norm panics unless the update scales the matrix first.
func TestLearnTinyScales(t *testing.T) {
	dir := t.TempDir()
	for _, scale := range []float64{1e-130, 1e-200, 1e-300} {
		data := randomSPD(12, 3, 5)
		for i := range data {
			data[i] *= scale
		}
		in := filepath.Join(dir, fmt.Sprintf("tiny%g.npy", scale))
		if err := store.WriteNPY(in, []int{12, 3, 3}, data); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("dict%g", scale))
		if _, stderr, err := runCLI(t, "learn", in, "--atoms", "2", "--iters", "2", "--out", out); err != nil {
			t.Errorf("scale %g: %v\n%s", scale, err, stderr)
		}
	}
}

// TestPseudoKernel checks --pseudo-kernel: learn refuses a σ outside
// Theorem 1's set without it, naming the flag, and learns with it,
// recording it in learn.json; encode takes it from there with the σ.
func TestPseudoKernel(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	if err := store.WriteNPY(in, []int{10, 3, 3}, randomSPD(10, 3, 5)); err != nil {
		t.Fatal(err)
	}
	dict, codes := filepath.Join(dir, "dict"), filepath.Join(dir, "codes")
	if _, _, err := runCLI(t, "learn", "--atoms", "3", "--sigma", "0.7", "--out", dict, in); err == nil || !strings.Contains(err.Error(), "(--pseudo-kernel)") {
		t.Errorf("σ = 0.7 on 3×3 matrices: %v", err)
	}
	if _, stderr, err := runCLI(t, "learn", "--atoms", "3", "--sigma", "0.7", "--pseudo-kernel", "--iters", "2", "--out", dict, in); err != nil {
		t.Fatalf("learn --pseudo-kernel: %v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "encode", "--dict", dict, "--out", codes, in); err != nil {
		t.Fatalf("encode: %v\n%s", err, stderr)
	}
	for _, f := range []string{filepath.Join(dict, dictionary.RecordFile), filepath.Join(codes, dictionary.CodesLog)} {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), `"sigma": 0.7,`) || !strings.Contains(string(b), `"pseudo_kernel": true,`) {
			t.Errorf("%s: %v\n%s", f, err, b)
		}
	}
}
