package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/dictionary"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

// TestEncodeTangent encodes a describe folder as tangent vectors at its
// Karcher mean, a .npy file at the identity and at the folder's saved
// reference, and checks the files against the library: codes.npy is
// spd.TangentVectors at the reference that reference.npy holds, the mean
// of spd.KarcherMean; identity gives the log-Euclidean vectors.
func TestEncodeTangent(t *testing.T) {
	dir := t.TempDir()
	src := imageFolder(t, 2)
	desc := filepath.Join(dir, "desc")
	if _, stderr, err := runCLI(t, "describe", src, "--features", "I,Ix,Iy", "--out", desc); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	train := filepath.Join(dir, "train-ts")
	stdout, stderr, err := runCLI(t, "encode", "--tangent", "--out", train, desc)
	if err != nil {
		t.Fatalf("encode --tangent: %v\n%s", err, stderr)
	}
	m, _ := store.ReadMatrices(desc)
	set, err := spd.NewSetFromData(3, m.Data)
	if err != nil {
		t.Fatal(err)
	}
	n := set.Len()
	if !strings.Contains(stdout, "as tangent vectors of length 6 at the reference mean") {
		t.Errorf("encode printed %q", stdout)
	}
	xs := make([]*mat.SymDense, n)
	for i := range xs {
		xs[i] = set.At(i)
	}
	mean, _, err := spd.KarcherMean(context.Background(), xs, &spd.MeanOptions{Tol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	ref, file, err := dictionary.ReadReference(train)
	if err != nil || file != filepath.Join(train, dictionary.ReferenceFile) {
		t.Fatalf("reference: %v, %s", err, file)
	}
	if !mat.EqualApprox(ref, mean, 1e-12) {
		t.Errorf("reference.npy %v, want the Karcher mean %v", mat.Formatted(ref), mat.Formatted(mean))
	}
	check := func(out string, p mat.Symmetric) {
		t.Helper()
		got, err := readNPY2(filepath.Join(out, dictionary.CodesFile))
		if err != nil {
			t.Fatal(err)
		}
		want, err := spd.TangentVectors(context.Background(), set, nil, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want.RawMatrix().Data) {
			t.Errorf("%s: codes.npy %v, want spd.TangentVectors %v", out, got, want.RawMatrix().Data)
		}
	}
	check(train, ref)
	var rec dictionary.TangentRecord
	b, _ := os.ReadFile(filepath.Join(train, dictionary.CodesLog))
	if err := json.Unmarshal(b, &rec); err != nil || rec.Encoding != "tangent-space" || rec.Reference != "mean" || rec.Samples != n || rec.Dim != 3 || rec.Length != 6 || rec.Input != desc {
		t.Errorf("encode.json: %+v, %v", rec, err)
	}
	m1, _ := os.ReadFile(filepath.Join(desc, store.ManifestFile))
	m2, _ := os.ReadFile(filepath.Join(train, store.ManifestFile))
	if string(m1) != string(m2) || len(m1) == 0 {
		t.Error("encode --tangent did not carry the manifest over")
	}

	// A .npy input at the identity: the log-Euclidean vectors.
	npy := filepath.Join(dir, "x.npy")
	if err := store.WriteNPY(npy, []int{n, 3, 3}, m.Data); err != nil {
		t.Fatal(err)
	}
	le := filepath.Join(dir, "le")
	if _, stderr, err := runCLI(t, "encode", "--tangent", "--reference", "identity", "--out", le, npy); err != nil {
		t.Fatalf("encode --reference identity: %v\n%s", err, stderr)
	}
	got, _ := readNPY2(filepath.Join(le, dictionary.CodesFile))
	w := spd.NewWorkspace(3)
	for i := range n {
		v := make([]float64, 6)
		if err := w.LogVecTo(v, set.View(i), nil); err != nil {
			t.Fatal(err)
		}
		for k := range v {
			if d := got[i*6+k] - v[k]; d > 1e-12 || d < -1e-12 {
				t.Fatalf("identity: vector %d = %v, vec(log X) = %v", i, got[i*6:i*6+6], v)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(le, store.ManifestFile)); !os.IsNotExist(err) {
		t.Errorf("a .npy input has no manifest to carry over: %v", err)
	}

	// The training folder's reference, reused for other descriptors,
	// from the folder and from its reference.npy.
	for _, r := range []string{train, filepath.Join(train, dictionary.ReferenceFile)} {
		again := filepath.Join(dir, "again"+filepath.Base(r))
		if _, stderr, err := runCLI(t, "encode", "--tangent", "--reference", r, "--out", again, npy); err != nil {
			t.Fatalf("encode --reference %s: %v\n%s", r, err, stderr)
		}
		check(again, ref)
	}
}
