package store

import (
	"encoding/csv"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/covpipe/covpipe/covariance"
)

// TestAppendField checks that encoding/csv reads the fields back, and
// which fields are quoted.
func TestAppendField(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", ""},
		{"a/b.png", "a/b.png"},
		{"c,1/x.png", `"c,1/x.png"`},
		{`say "hi"`, `"say ""hi"""`},
		{" lead", `" lead"`},
		{"trail\t", "\"trail\t\""},
		{"in side", "in side"},
		{"two\nlines", "\"two\nlines\""},
		{"ünïcode", "ünïcode"},
	} {
		got := string(appendField(nil, tc.in))
		if got != tc.want {
			t.Errorf("appendField(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.in == "" {
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(got + "," + got + "\n")).Read()
		if err != nil || len(rec) != 2 || rec[0] != tc.in || rec[1] != tc.in {
			t.Errorf("csv reads %q back as %q, %v", got, rec, err)
		}
	}
}

func FuzzAppendField(f *testing.F) {
	for _, s := range []string{"a", "a,b", `"`, " x ", "\r", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || strings.ContainsRune(s, '\r') {
			return // encoding/csv drops empty records and \r before \n
		}
		line := string(appendField(nil, s)) + ",x\n"
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(rec) != 2 || rec[0] != s {
			t.Fatalf("%q written as %q, read back as %q, %v", s, line, rec, err)
		}
	})
}

func TestAppendRegion(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100 {
		r := covariance.Region{X: rng.IntN(1 << 20), Y: rng.IntN(100), W: 1 + rng.IntN(1000), H: 1 + rng.IntN(1<<30)}
		if got := string(appendRegion(nil, r)); got != r.String() {
			t.Fatalf("appendRegion(%v) = %q", r, got)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		k, inputs int
		rel, path string
	}{
		{0, 1, "a/b.png", "a/b.png"},
		{0, 1, "3:x.png", "3:x.png"},
		{0, 2, "a/b.png", "0:a/b.png"},
		{11, 12, "/abs/x:y.png", "11:/abs/x:y.png"},
	} {
		p := string(AppendPath(nil, tc.k, tc.inputs, tc.rel))
		if p != tc.path {
			t.Errorf("AppendPath(%d, %d, %q) = %q, want %q", tc.k, tc.inputs, tc.rel, p, tc.path)
		}
		k, rel, err := splitPath(p, tc.inputs)
		if err != nil || k != tc.k || rel != tc.rel {
			t.Errorf("splitPath(%q, %d) = %d, %q, %v", p, tc.inputs, k, rel, err)
		}
	}
	for _, p := range []string{"a.png", "2:a.png", "-1:a.png", "01:a.png", ":a.png"} {
		if _, _, err := splitPath(p, 2); err == nil {
			t.Errorf("splitPath(%q, 2) accepted", p)
		}
	}
}

// TestEscape checks the escaping of manifest and failures fields: valid
// UTF-8 stays as it is, backslashes are doubled and other bytes written
// \xNN, reversibly.
func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a/b.png", "a/b.png"},
		{"ünï/x.jpg", "ünï/x.jpg"},
		{`a\b.png`, `a\\b.png`},
		{"caf\xe9.png", `caf\xe9.png`},
		{"\xff\xfe", `\xff\xfe`},
		{`\x41`, `\\x41`},
		{"\xc3", `\xc3`}, // a cut UTF-8 sequence
		{"", ""},
	} {
		got := string(appendEscaped(nil, tc.in))
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("escape %q = %q, want %q", tc.in, got, tc.want)
		}
		if back, err := unescape(got); err != nil || back != tc.in {
			t.Errorf("unescape %q = %q, %v, want %q", got, back, err, tc.in)
		}
	}
	for _, bad := range []string{`a\`, `\q`, `\x4`, `\xZZ`, `\xAB`} {
		if _, err := unescape(bad); err == nil {
			t.Errorf("unescape %q: no error", bad)
		}
	}
}

// TestAppendExported checks the exported forms: escaped, then quoted, so
// that encoding/csv and unescape give the value back; a path is prefixed
// with its input's number only when there are several inputs.
func TestAppendExported(t *testing.T) {
	if got := string(AppendPathField(nil, 0, 1, "a/b.png")); got != "a/b.png" {
		t.Errorf("one input: %q", got)
	}
	for _, in := range []string{"a/b.png", "c,1/caf\xe9.png", `x\y "z".png`, "two\nlines"} {
		line := string(AppendPathField(append(AppendField(nil, in), ','), 1, 2, in)) + "\n"
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(rec) != 2 {
			t.Fatalf("csv reads %q as %q, %v", line, rec, err)
		}
		field, ferr := unescape(rec[0])
		path, perr := unescape(rec[1])
		if ferr != nil || perr != nil || field != in || path != "1:"+in {
			t.Errorf("%q written as %q, read back as %q and %q (%v, %v)", in, line, field, path, ferr, perr)
		}
	}
}
