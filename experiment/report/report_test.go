package report_test

import (
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/experiment/report"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/store"
)

var update = flag.Bool("update", false, "rewrite the golden summaries testdata/*.md from the fixtures")

// TestWriteGolden pins summary.md, byte for byte, for fixed results of
// each kind (testdata/*.json): accuracies with averages, warnings and
// notes; CMC curves; energy curves; both kinds in one run; open-set
// rejection with its ROC. An energy
// run recorded in the first results.json layout gives the same report as
// one in the current layout. Every figure the config asks for is written
// and decodes as an 800×600 PNG.
func TestWriteGolden(t *testing.T) {
	for _, tc := range []struct {
		fixture, golden string
		figures         []string
	}{
		{"testdata/accuracy.json", "testdata/accuracy.md", []string{"accuracy.png"}},
		{"testdata/cmc.json", "testdata/cmc.md", []string{"cmc-reid.png", "cmc-reid_one_camera.png"}},
		{"testdata/energy.json", "testdata/energy.md", []string{"energy-fig7.png"}},
		{"../results/testdata/results-v1-energy.json", "testdata/energy.md", []string{"energy-fig7.png"}},
		{"testdata/mixed.json", "testdata/mixed.md", nil},
		{"testdata/openset.json", "testdata/openset.md", []string{"roc-o.png"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r, err := results.Read(tc.fixture)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "new")
			f, err := store.CreateFolder(context.Background(), dir, store.FormatRun)
			if err != nil {
				t.Fatal(err)
			}
			if err := report.Write(f, r, report.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "summary.md"))
			if err != nil {
				t.Fatal(err)
			}
			if *update && strings.HasPrefix(tc.fixture, "testdata/") {
				if err := os.WriteFile(tc.golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(tc.golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("summary.md differs from %s (go test -update rewrites it):\n%s", tc.golden, lineDiff(string(want), string(got)))
			}
			if s := report.Summary(r); !strings.HasPrefix(string(got), s[:strings.Index(s, "\nWall time")]) {
				t.Error("Summary differs from summary.md before the figures")
			}
			written, _ := filepath.Glob(filepath.Join(dir, "*"))
			files := []string{filepath.Join(dir, "meta.json"), filepath.Join(dir, "summary.md")}
			for _, f := range tc.figures {
				files = append(files, filepath.Join(dir, f))
			}
			if slices.Sort(files); !slices.Equal(written, files) {
				t.Errorf("wrote %v, want %v", written, files)
			}
			for _, f := range tc.figures {
				checkPNG(t, filepath.Join(dir, f))
			}
		})
	}
}

// checkPNG fails unless path is an 800×600 PNG.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	cfg, err := png.DecodeConfig(foldertest.Open(t, path))
	if err != nil || cfg.Width != 800 || cfg.Height != 600 {
		t.Errorf("%s: %dx%d, %v; want an 800x600 PNG", path, cfg.Width, cfg.Height, err)
	}
}

// lineDiff lists the lines where got departs from want.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, a, c)
		}
	}
	return b.String()
}

// TestWriteHTML checks that Write with HTML adds report.html to the set,
// beside summary.md and the figures, with a table per table of
// summary.md, keyed by what it holds, and every figure.
func TestWriteHTML(t *testing.T) {
	r, err := results.Read("testdata/cmc.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f, err := store.CreateFolder(context.Background(), dir, store.FormatRun)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if err := report.Write(f, r, report.Options{HTML: true}); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	set, err := store.OpenSet(dir, store.FormatRun)
	if err != nil || !set.Has("report.html") || !set.Has("summary.md") {
		t.Fatalf("set %+v, %v", set, err)
	}
	page, err := set.ReadFile("report.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-key="accuracy"`, `data-key="cmc:reid"`, `data-key="cmc:reid/one camera"`,
		`alt="cmc-reid.png"`, `alt="cmc-reid_one_camera.png"`, "<th scope=\"row\">rsr</th><td class=\"num\">62.50 ± 3.5</td><td class=\"num\">41.67 ± 11.8</td><td class=\"num\">1.3</td>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}
