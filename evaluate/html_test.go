package evaluate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/htmlreport"
	"github.com/covpipe/covpipe/store"
)

// TestWriteHTML writes handItems' evaluation with its page, reads
// evaluation.json back (DecodeDocument) and checks that WriteHTML of it
// and of the figures writes the same page, which shows every figure and
// has its tables; a document without a montage shows the others.
func TestWriteHTML(t *testing.T) {
	dir := t.TempDir()
	r, err := Evaluate(handItems(), Options{Classes: []string{"a", "b", "c"}, Reject: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, w func(f *store.Folder) error) string {
		t.Helper()
		out := filepath.Join(dir, name)
		f, err := store.CreateFolder(context.Background(), out, store.FormatEvaluation)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Abort()
		if err := w(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	doc := Document{Version: "v", Model: "m", Method: "rsr", Inputs: []string{"in"}, Report: r}
	first := write("first", func(f *store.Folder) error {
		_, err := Write(f, doc, handItems(), WriteOptions{Title: "m on in", HTML: true})
		return err
	})
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(first, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	d, err := DecodeDocument(DocumentFile, read(DocumentFile))
	if err != nil {
		t.Fatal(err)
	}
	figures := map[string][]byte{ConfusionPlot: read(ConfusionPlot), ROCPlot: read(ROCPlot)}
	second := write("second", func(f *store.Folder) error { return WriteHTML(f, d, figures) })
	page := string(read(htmlreport.FileName))
	again, err := os.ReadFile(filepath.Join(second, htmlreport.FileName))
	if err != nil || string(again) != page {
		t.Errorf("report.html from evaluation.json differs from Write's: %v", err)
	}
	for _, want := range []string{`alt="confusion.png"`, `alt="roc.png"`, `data-key="summary"`, `data-key="open-set"`,
		`data-key="classes"`, `data-key="confusion"`, `data-key="misclassified"`, "4 items answered wrong"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// TestDecodeDocument refuses what is not an evaluation.json, naming it.
func TestDecodeDocument(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"items": 2`, "e.json: unexpected end of JSON input"},
		{`{"model": "m"}`, "e.json holds no evaluation"},
		{`{"items": 1, "confusion": {"true": ["a"], "predicted": ["a"], "counts": []}}`, "e.json: confusion matrix of 0 rows for 1 true class"},
		{`{"items": 1, "confusion": {"true": ["a"], "predicted": ["a"], "counts": [[1, 0]]}}`, `e.json: confusion row "a" has 2 counts for 1 answered class`},
	} {
		if _, err := DecodeDocument("e.json", []byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.want)
		}
	}
}
