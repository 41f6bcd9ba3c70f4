package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/store"
)

// imageFolder writes a folder of 2 classes with n noise PNGs each and
// returns it.
func imageFolder(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, class := range []string{"p1", "p2"} {
		noisePNGs(t, rng, filepath.Join(dir, class), n)
	}
	return dir
}

// noisePNGs writes n 16×24 noise PNGs named a.png, b.png, ... into dir,
// creating it.
func noisePNGs(t *testing.T, rng *rand.Rand, dir string, n int) {
	t.Helper()
	for i := range n {
		imagetest.Write(t, filepath.Join(dir, string(rune('a'+i))+".png"), imagetest.NoiseNRGBA(rng, 16, 24))
	}
}

func TestDescribeCommand(t *testing.T) {
	src := imageFolder(t, 3)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// Flags after the INPUT, as interspersed allows.
	stdout, stderr, err := runCLI(t, "describe", "mars:"+src, "--out", out, "--features", "reid", "--resize", "8x12",
		"--filter", "Box", "--regions", "grid:2x1", "--ridge", "0.001", "--workers", "2", "--skip-bad")
	if err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "described 6 images: 12 descriptors of 17x17") || !strings.Contains(stdout, "0 images failed") {
		t.Errorf("stdout: %q", stdout)
	}
	if !strings.Contains(stderr, "level=INFO") || !strings.Contains(stderr, "stage=describe") {
		t.Errorf("no progress log lines on a non-terminal stderr:\n%s", stderr)
	}
	got, err := store.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	m := got.Meta
	if m.Dim != 17 || m.Regions != "grid:2x1" || m.Resize == nil || *m.Resize != (store.Size{Width: 8, Height: 12}) ||
		m.Filter != "box" || m.Ridge != (store.Ridge{Kind: "trace-ridge", Eps: 0.001}) || !m.SkipBad || len(got.Rows) != 12 {
		t.Errorf("meta %+v, %d rows", m, len(got.Rows))
	}
	if got.Rows[1].Path != "p1/a.png" || got.Rows[1].Label != "p1" || got.Rows[1].Region.String() != "8x6+0+6" {
		t.Errorf("row 1: %+v", got.Rows[1])
	}

	// --ridge 0 is no regularisation; sharded runs merge into the same
	// bytes as the whole run.
	whole := filepath.Join(dir, "whole")
	if _, stderr, err := runCLI(t, "describe", "--out", whole, "--ridge", "0", src); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	if m, err := store.ReadMeta(whole); err != nil || m.Ridge.Kind != "none" || m.Features[0] != "I" {
		t.Errorf("--ridge 0: %+v, %v", m, err)
	}
	var shards []string
	for _, s := range []string{"1/2", "0/2"} {
		sd := filepath.Join(dir, "shard"+s[:1])
		if _, stderr, err := runCLI(t, "describe", src, "--ridge", "0", "--shard", s, "-o", sd); err != nil {
			t.Fatalf("describe --shard %s: %v\n%s", s, err, stderr)
		}
		shards = append(shards, sd)
	}
	merged := filepath.Join(dir, "merged")
	stdout, _, err = runCLI(t, append([]string{"merge", "--out", merged}, shards...)...)
	if err != nil || !strings.Contains(stdout, "merged 2 shards: 6 descriptors of 5x5 from 6 images") {
		t.Fatalf("merge: %q, %v", stdout, err)
	}
	for _, f := range []string{store.DescriptorsFile, store.ManifestFile, store.MetaFile} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the whole run's", f)
		}
	}
	// Flags after the shard folders.
	if _, _, err := runCLI(t, "merge", shards[0], "--out", filepath.Join(dir, "m2")); err == nil || !strings.Contains(err.Error(), "missing shard 0/2") {
		t.Errorf("merge of one of two shards: %v", err)
	}
}

// TestDescribeJPEGScale describes JPEGs resized to a quarter of their
// size: by default (auto) they are decoded at 1/2 scale, which meta.json
// records as jpeg_scale "auto"; --jpeg-scale fast decodes them at 1/4,
// recorded as "fast"; --jpeg-scale off decodes them at full size and
// records nothing, as before the setting, so that the folders' metadata
// differ. The descriptors differ a little.
func TestDescribeJPEGScale(t *testing.T) {
	src := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, class := range []string{"p1", "p2"} {
		for _, name := range []string{"a.jpg", "b.jpg"} {
			imagetest.Write(t, filepath.Join(src, class, name), imagetest.NoiseNRGBA(rng, 32, 48))
		}
	}
	dir := t.TempDir()
	var metas []store.Meta
	var descs [][]float64
	for _, mode := range []string{"", "auto", "off", "fast"} {
		out := filepath.Join(dir, "out-"+mode)
		args := []string{"describe", "mars:" + src, "--out", out, "--features", "reid", "--resize", "8x12"}
		if mode != "" {
			args = append(args, "--jpeg-scale", mode)
		}
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("describe --jpeg-scale %q: %v\n%s", mode, err, stderr)
		}
		got, err := store.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		metas = append(metas, got.Meta)
		descs = append(descs, got.Data)
	}
	if metas[0].JPEGScale != "auto" || metas[1].JPEGScale != "auto" || metas[2].JPEGScale != "" || metas[3].JPEGScale != "fast" {
		t.Errorf("jpeg_scale recorded as %q, %q, %q, %q; want auto, auto, none and fast", metas[0].JPEGScale, metas[1].JPEGScale, metas[2].JPEGScale, metas[3].JPEGScale)
	}
	for _, k := range []int{2, 3} {
		if d := metas[0].Diff(&metas[k]); !strings.HasPrefix(d, "jpeg_scale") {
			t.Errorf("auto and %s metadata differ by %q, want jpeg_scale", metas[k].JPEGScale, d)
		}
	}
	if !slices.Equal(descs[0], descs[1]) || slices.Equal(descs[0], descs[2]) || slices.Equal(descs[0], descs[3]) {
		t.Error("the default's descriptors are not auto's, or auto's are off's or fast's")
	}
}

// TestDescribePlainFolder describes a folder that holds its images
// directly, as `covpipe describe --out DIR photos/` does: every manifest
// row has an empty label, and Read and a sharded run's merge keep it.
func TestDescribePlainFolder(t *testing.T) {
	src := filepath.Join(t.TempDir(), "photos")
	noisePNGs(t, rand.New(rand.NewPCG(3, 4)), src, 3)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	stdout, stderr, err := runCLI(t, "describe", "--out", out, src+string(filepath.Separator))
	if err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "described 3 images: 3 descriptors of 5x5") {
		t.Errorf("stdout: %q", stdout)
	}
	man, err := os.ReadFile(filepath.Join(out, store.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	want := "index,path,label,region\n0,a.png,,16x24+0+0\n1,b.png,,16x24+0+0\n2,c.png,,16x24+0+0\n"
	if string(man) != want {
		t.Errorf("manifest.csv:\n%s\nwant:\n%s", man, want)
	}
	got, err := store.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != 3 {
		t.Fatalf("Read: %d rows, want 3", len(got.Rows))
	}
	for i, r := range got.Rows {
		if r.Label != "" || r.Path != string(rune('a'+i))+".png" {
			t.Errorf("Read row %d: %+v, want path %c.png and an empty label", i, r, 'a'+i)
		}
	}
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		sd := filepath.Join(dir, "shard"+s[:1])
		if _, stderr, err := runCLI(t, "describe", src, "--shard", s, "-o", sd); err != nil {
			t.Fatalf("describe --shard %s: %v\n%s", s, err, stderr)
		}
		shards = append(shards, sd)
	}
	merged := filepath.Join(dir, "merged")
	if _, _, err := runCLI(t, append([]string{"merge", "--out", merged}, shards...)...); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if m, _ := os.ReadFile(filepath.Join(merged, store.ManifestFile)); string(m) != want {
		t.Errorf("merged manifest.csv:\n%s\nwant:\n%s", m, want)
	}
}

func TestDescribeCommandErrors(t *testing.T) {
	src := imageFolder(t, 1)
	bad := imageFolder(t, 1)
	os.WriteFile(filepath.Join(bad, "p1", "z.png"), []byte("garbage"), 0o644)
	mixed := imageFolder(t, 1)
	noisePNGs(t, rand.New(rand.NewPCG(5, 6)), mixed, 1)
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"describe", src}, "--out DIR is required"},
		{[]string{"describe", "--out", out}, "at least one INPUT"},
		{[]string{"describe", src, "--out", out, "--bogus"}, "describe: flag provided but not defined: -bogus"},
		{[]string{"describe", src, "--out", out, "--workers", "many"}, "describe: --workers many: want a whole number (see covpipe describe --help)"},
		{[]string{"describe", src, "--out", out, "--workers", "-2"}, "--workers -2"},
		{[]string{"describe", src, "--out", out, "--features", "I,Q"}, `unknown feature "Q"`},
		{[]string{"describe", src, "--out", out, "--resize", "32"}, `--resize "32"`},
		{[]string{"describe", src, "--out", out, "--resize", "0x4"}, `--resize "0x4"`},
		{[]string{"describe", src, "--out", out, "--filter", "box"}, "no effect without --resize"},
		{[]string{"describe", src, "--out", out, "--resize", "8x8", "--filter", "cubic"}, `--filter "cubic"`},
		{[]string{"describe", src, "--out", out, "--jpeg-scale", "off"}, "--jpeg-scale off has no effect without --resize"},
		{[]string{"describe", src, "--out", out, "--resize", "8x8", "--jpeg-scale", "half"}, `--jpeg-scale "half" is not a JPEG scale setting: want auto, off or fast`},
		{[]string{"describe", src, "--out", out, "--regions", "grid:2"}, "--regions"},
		{[]string{"describe", src, "--out", out, "--regions", "blocks:100000000:2"}, "more than 67108864 regions per image"},
		{[]string{"describe", src, "--out", out, "--regions", "blocks:50000000:2"}, "--regions blocks:50000000:2 makes 50000000 descriptors of 5x5 per image, about 9.31 GiB, over --max-memory (4 GiB)"},
		{[]string{"describe", src, "--out", out, "--regions", "blocks:5000000:2", "--max-memory", "512MiB"}, "over --max-memory (0.5 GiB)"},
		{[]string{"describe", src, "--out", out, "--ridge", "-1"}, "--ridge -1"},
		{[]string{"describe", src, "--out", out, "--ridge", "NaN"}, "--ridge NaN"},
		{[]string{"describe", src, "--out", out, "--ridge-kind", "bogus"}, `--ridge-kind bogus: covariance: unknown regularisation kind "bogus"`},
		{[]string{"describe", src, "--out", out, "--ridge-kind", "none"}, "--ridge-kind none: covariance: ridge kind none with strength 0.0001: give strength 0 for none"},
		{[]string{"describe", src, "--out", out, "--estimator", "ledoit-wolf"}, `describe: --estimator: covariance: unknown estimator "ledoit-wolf" (want scm, lwf or oas)`},
		{[]string{"describe", src, "--out", out, "--normalize", "determinant"}, `describe: --normalize: covariance: unknown normalisation "determinant" (want none, trace, det or corr)`},
		{[]string{"describe", src, "--out", out, "--shard", "2/2"}, `--shard: store: invalid shard: "2/2"`},
		{[]string{"describe", src, "--out", out, "--max-memory", "lots"}, `--max-memory: memory "lots"`},
		{[]string{"describe", src, "--out", out, "--max-memory", "1KiB"}, "over the memory limit of 1.0 KiB: raise it with --max-memory"},
		{[]string{"describe", bad, "--out", out, "--max-memory", "1KiB", "--skip-bad"}, "all 3 images failed, so no output was written"},
		{[]string{"describe", filepath.Join(src, "nope"), "--out", out}, "nope"},
		{[]string{"describe", bad, "--out", out}, "load " + filepath.Join(bad, "p1", "z.png")},
		{[]string{"describe", mixed, "--out", out}, "image " + filepath.Join(mixed, "a.png") + " lies directly in the folder, but class folder " + filepath.Join(mixed, "p1")},
		{[]string{"describe", src, "--out", out, "--features", "face", "--gabor-border", "mirror"}, `unknown border "mirror"`},
		{[]string{"describe", src, "--out", out, "--features", "texture", "--gabor-border", "zero"}, "has no Gabor planes"},
		{[]string{"describe", src, "--out", out, "--features", "face;gabor-border=zero", "--gabor-border", "symmetric"}, "given twice"},
		{[]string{"merge", src}, "--out DIR is required"},
		{[]string{"merge", "--out", out}, "want the SHARD_DIR"},
		{[]string{"merge", "--out", out, src}, "no meta.json"},
		{[]string{"merge", "--bogus", src}, "merge: flag provided but not defined: -bogus"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error containing %q", tc.args, err, tc.want)
		}
		if err != nil && strings.Contains(oneLine(err), "\n") {
			t.Errorf("%v: error is not one line", tc.args)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%v: failed run left %v", tc.args, entries)
		}
	}
}

// TestDescribeGaborBorder checks that the border reaches the descriptors
// from the flag and from the spec, and that meta.json records it.
func TestDescribeGaborBorder(t *testing.T) {
	src := imageFolder(t, 1)
	read := func(args ...string) (*store.Output, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		if _, stderr, err := runCLI(t, append([]string{"describe", src, "--out", out, "--ridge", "0"}, args...)...); err != nil {
			t.Fatalf("describe %v: %v\n%s", args, err, stderr)
		}
		o, err := store.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		return o, o.Meta.GaborBorder
	}
	zero, zb := read("--features", "I,G_v4_u0")
	sym, sb := read("--features", "I,G_v4_u0", "--gabor-border", "symmetric")
	spec, pb := read("--features", "I, G_v4_u0; gabor-border=symmetric")
	_, tb := read("--features", "texture")
	if zb != "zero" || sb != "symmetric" || pb != "symmetric" || tb != "" {
		t.Errorf("meta gabor_border: default %q, flag %q, spec %q, texture %q", zb, sb, pb, tb)
	}
	if slices.Equal(zero.Data, sym.Data) || !slices.Equal(sym.Data, spec.Data) {
		t.Error("the symmetric border, by flag or spec, must change the descriptors and agree")
	}
}

// TestDescribeRidgeFlags checks the regularisation that --ridge and
// --ridge-kind give, and the estimator and normalisation of --estimator
// and --normalize, as meta.json records them (the latter two only when
// not the defaults).
func TestDescribeRidgeFlags(t *testing.T) {
	src := imageFolder(t, 1)
	trace := store.Ridge{Kind: "trace-ridge", Eps: 1e-4}
	for _, tc := range []struct {
		args      []string
		want      store.Ridge
		est, norm string
	}{
		{nil, trace, "", ""},
		{[]string{"--ridge", "0.01"}, store.Ridge{Kind: "trace-ridge", Eps: 0.01}, "", ""},
		{[]string{"--ridge-kind", "diag-ridge"}, store.Ridge{Kind: "diag-ridge", Eps: 1e-4}, "", ""},
		{[]string{"--ridge-kind", "ridge", "--ridge", "0.5"}, store.Ridge{Kind: "ridge", Eps: 0.5}, "", ""},
		{[]string{"--ridge-kind", "ridge", "--ridge", "0"}, store.Ridge{Kind: "none"}, "", ""},
		{[]string{"--ridge-kind", "none", "--ridge", "0"}, store.Ridge{Kind: "none"}, "", ""},
		{[]string{"--estimator", "scm", "--normalize", "none"}, trace, "", ""},
		{[]string{"--estimator", "lwf", "--ridge", "0"}, store.Ridge{Kind: "none"}, "lwf", ""},
		{[]string{"--estimator", "oas", "--normalize", "corr"}, trace, "oas", "corr"},
		{[]string{"--normalize", "det"}, trace, "", "det"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		if _, stderr, err := runCLI(t, append([]string{"describe", src, "--out", out}, tc.args...)...); err != nil {
			t.Fatalf("describe %v: %v\n%s", tc.args, err, stderr)
		}
		m, err := store.ReadMeta(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.Ridge != tc.want || m.Estimator != tc.est || m.Normalize != tc.norm {
			t.Errorf("%v: ridge %+v, estimator %q, normalize %q; want %+v, %q, %q", tc.args, m.Ridge, m.Estimator, m.Normalize, tc.want, tc.est, tc.norm)
		}
	}
}

func TestDescribeHelp(t *testing.T) {
	for _, cmd := range []string{"describe", "merge"} {
		stdout, _, err := runCLI(t, cmd, "--help")
		if err != nil || !strings.Contains(stdout, "--out") || !strings.Contains(stdout, "shard") {
			t.Errorf("%s --help: %q, %v", cmd, stdout, err)
		}
	}
}

// TestDescribeNotes checks the terminal note on the entries that listing
// skipped, and that --max-memory sends an image over it to failures.csv
// with --skip-bad.
func TestDescribeNotes(t *testing.T) {
	src := imageFolder(t, 2)
	os.WriteFile(filepath.Join(src, "p1", "notes.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(src, "README"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(src, ".DS_Store"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(src, "empty"), 0o755)
	imagetest.Write(t, filepath.Join(src, "p2", "zbig.png"), imagetest.NoiseNRGBA(rand.New(rand.NewPCG(9, 9)), 64, 64))
	out := filepath.Join(t.TempDir(), "out")
	// 16×24 images take 16·24·6·8 = 18432 bytes, 64×64 ones 196608.
	stdout, stderr, err := runCLI(t, "describe", src, "--out", out, "--skip-bad", "--max-memory", "100000")
	if err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "skipped 2 non-image files, 1 empty class folder while listing the inputs") || !strings.Contains(stdout, "1 image failed,") {
		t.Errorf("stdout: %q", stdout)
	}
	b, _ := os.ReadFile(filepath.Join(out, store.FailuresFile))
	if !strings.Contains(string(b), "p2/zbig.png,") || !strings.Contains(string(b), "64x64") {
		t.Errorf("failures.csv:\n%s", b)
	}
}

// TestTornInputs checks that learn and encode refuse a describe folder
// whose files are not one set, asking to rerun describe.
func TestTornInputs(t *testing.T) {
	src := imageFolder(t, 3)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, run := range []struct{ out, ridge string }{{a, "0.001"}, {b, "0.01"}} {
		if _, stderr, err := runCLI(t, "describe", src, "--out", run.out, "--ridge", run.ridge); err != nil {
			t.Fatalf("describe: %v\n%s", err, stderr)
		}
	}
	dict := filepath.Join(dir, "dict")
	if _, stderr, err := runCLI(t, "learn", "--atoms", "2", "--iters", "1", "--out", dict, a); err != nil {
		t.Fatalf("learn: %v\n%s", err, stderr)
	}
	// A run killed between its renames: b's descriptors beside a's meta.
	data, _ := os.ReadFile(filepath.Join(b, store.DescriptorsFile))
	os.WriteFile(filepath.Join(a, store.DescriptorsFile), data, 0o644)
	for _, args := range [][]string{
		{"learn", "--atoms", "2", "--out", filepath.Join(dir, "d2"), a},
		{"encode", "--dict", dict, "--out", filepath.Join(dir, "codes"), a},
	} {
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), "torn folder") || !strings.Contains(err.Error(), "rerun covpipe describe") {
			t.Errorf("%s of a torn folder: %v", args[0], err)
		}
	}
}

// TestDescribeManifestOrder checks that a CSV manifest's images are
// described in the order of its rows, that image files are inputs of their
// own, and that shards of such a run, each run with --skip-bad and no
// failure (which it does not call "listed in failures.csv"), merge into
// the bytes of the whole run.
func TestDescribeManifestOrder(t *testing.T) {
	src := imageFolder(t, 3)
	manifest := filepath.Join(src, "list.csv")
	if err := os.WriteFile(manifest, []byte("path,label\np2/c.png,z\np1/a.png,y\np2/a.png,x\np1/c.png,w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(src, "p1", "b.png")
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	if _, stderr, err := runCLI(t, "describe", "--skip-bad", "--out", whole, manifest, single); err != nil {
		t.Fatalf("describe: %v\n%s", err, stderr)
	}
	man, err := os.ReadFile(filepath.Join(whole, store.ManifestFile))
	want := "index,path,label,region\n0,0:p2/c.png,z,16x24+0+0\n1,0:p1/a.png,y,16x24+0+0\n2,0:p2/a.png,x,16x24+0+0\n3,0:p1/c.png,w,16x24+0+0\n4,1:b.png,,16x24+0+0\n"
	if err != nil || string(man) != want {
		t.Errorf("manifest.csv:\n%s\nwant:\n%s", man, want)
	}
	var shards []string
	for _, s := range []string{"2/3", "0/3", "1/3"} {
		sd := filepath.Join(dir, "shard"+s[:1])
		stdout, stderr, err := runCLI(t, "describe", "--skip-bad", "--shard", s, "--out", sd, manifest, single)
		if err != nil {
			t.Fatalf("describe --shard %s: %v\n%s", s, err, stderr)
		}
		if !strings.Contains(stdout, "0 images failed\n") || strings.Contains(stdout, "listed in") {
			t.Errorf("--shard %s: %q", s, stdout)
		}
		shards = append(shards, sd)
	}
	merged := filepath.Join(dir, "merged")
	if _, _, err := runCLI(t, append([]string{"merge", "--out", merged}, shards...)...); err != nil {
		t.Fatalf("merge: %v", err)
	}
	for _, f := range []string{store.DescriptorsFile, store.ManifestFile, store.FailuresFile, store.MetaFile} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the whole run's", f)
		}
	}
}

// TestDescribeGreyWarning checks that colour features of grey images are
// warned of, with their count, and that colour images are not.
func TestDescribeGreyWarning(t *testing.T) {
	grey := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, name := range []string{"a.png", "b.png"} {
		imagetest.Write(t, filepath.Join(grey, "g", name), imagetest.NoiseGray(rng, 8, 8))
	}
	for _, tc := range []struct {
		src, features string
		warn          bool
	}{
		{grey, "R,G,B,x", true},
		{grey, "I,x", false},
		{imageFolder(t, 1), "R,G,B,x", false},
	} {
		stdout, stderr, err := runCLI(t, "describe", "--features", tc.features, "--out", filepath.Join(t.TempDir(), "out"), tc.src)
		if err != nil {
			t.Fatalf("describe: %v\n%s", err, stderr)
		}
		const msg = "warning: 2 of the 2 images described are grey (R = G = B), so their colour features repeat one plane"
		if strings.Contains(stdout, msg) != tc.warn || !tc.warn && strings.Contains(stdout, "warning") {
			t.Errorf("--features %s: %q, want the warning %v", tc.features, stdout, tc.warn)
		}
	}
}

// TestDescribeOutInsideInput checks that an output folder inside the
// input folder is not listed as one of its folders: reruns write the
// same meta.json, which counts no skipped entry, for class folders and
// for a plain folder of images.
func TestDescribeOutInsideInput(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "photos")
	noisePNGs(t, rand.New(rand.NewPCG(3, 4)), plain, 3)
	for _, src := range []string{imageFolder(t, 2), plain} {
		out := filepath.Join(src, "desc")
		var metas [2][]byte
		for i := range metas {
			if _, stderr, err := runCLI(t, "describe", "--out", out, src); err != nil {
				t.Fatalf("describe %d: %v\n%s", i, err, stderr)
			}
			var err error
			if metas[i], err = os.ReadFile(filepath.Join(out, store.MetaFile)); err != nil {
				t.Fatal(err)
			}
		}
		if string(metas[0]) != string(metas[1]) {
			t.Errorf("%s: meta.json changed between reruns:\n%s\n%s", src, metas[0], metas[1])
		}
		m, err := store.ReadMeta(out)
		if err != nil {
			t.Fatal(err)
		}
		if s := m.Inputs[0].Skipped; s != (datasets.Skipped{}) {
			t.Errorf("%s: skipped %+v: the output folder is counted", src, s)
		}
	}
}
