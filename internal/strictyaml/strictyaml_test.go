package strictyaml

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type inner struct {
	Rate float64 `yaml:"rate"`
}

type common struct {
	Tol float64 `yaml:"tolerance"`
}

type outer struct {
	Name   string            `yaml:"name"`
	Inner  *inner            `yaml:"inner"`
	List   []inner           `yaml:"list"`
	Free   map[string]string `yaml:"free"`
	common `yaml:",inline"`
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		doc, err string
	}{
		{"name: a\ninner: {rate: 1}\nlist: [{rate: 2}]\nfree: {anything: x}\ntolerance: 3\n", ""},
		{"name: a\nnmae: b\n", `line 2: unknown key "nmae" in thing (allowed: name, inner, list, free, tolerance)`},
		{"inner:\n  rate: 1\n  rte: 2\n", `line 3: unknown key "rte" in inner (allowed: rate)`},
		{"list:\n  - {rate: 1}\n  - {rat: 1}\n", `line 3: unknown key "rat" in list (allowed: rate)`},
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(tc.doc), &n); err != nil {
			t.Fatal(err)
		}
		var v outer
		err := Decode(&n, &v, "thing")
		if tc.err == "" {
			if err != nil || v.Name != "a" || v.Inner.Rate != 1 || v.List[0].Rate != 2 || v.Free["anything"] != "x" || v.Tol != 3 {
				t.Errorf("Decode(%q) = %+v, %v", tc.doc, v, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Decode(%q) error %v, want %q", tc.doc, err, tc.err)
		}
	}
}

// TestUnmarshal checks that Unmarshal refuses an unknown key at any depth,
// naming its line, and gives io.EOF for an empty document.
func TestUnmarshal(t *testing.T) {
	var v outer
	if err := Unmarshal([]byte("name: a\ninner: {rate: 1}\n"), &v); err != nil || v.Name != "a" || v.Inner.Rate != 1 {
		t.Errorf("Unmarshal = %+v, %v", v, err)
	}
	for _, doc := range []string{"nmae: a\n", "inner:\n  rte: 1\n"} {
		if err := Unmarshal([]byte(doc), &v); err == nil || !strings.Contains(err.Error(), "not found in type") {
			t.Errorf("Unmarshal(%q): %v, want an unknown-field error", doc, err)
		}
	}
	if err := Unmarshal(nil, &v); !errors.Is(err, io.EOF) {
		t.Errorf("Unmarshal(empty): %v, want io.EOF", err)
	}
}

// TestOneDocument checks that a second document is refused, naming its
// line, whether it is empty, valid or not, and that document markers
// around one document are accepted.
func TestOneDocument(t *testing.T) {
	for _, tc := range []struct {
		doc, err string
	}{
		{"name: a\n", ""},
		{"---\nname: a\n", ""},
		{"name: a\n...\n", ""},
		{"name: a\n---\nname: b\n", "line 2: a second YAML document"},
		{"name: a\n---\n", "line 2: a second YAML document"},
		{"# one\nname: a\n---\n# two\nname: [\n", "a second YAML document: yaml: line 5"},
	} {
		var v outer
		_, perr := Parse([]byte(tc.doc))
		uerr := Unmarshal([]byte(tc.doc), &v)
		for _, err := range []error{perr, uerr} {
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("%q: %v, want %q", tc.doc, err, tc.err)
			}
		}
		if tc.err == "" && v.Name != "a" {
			t.Errorf("%q: decoded %+v", tc.doc, v)
		}
	}
}

// billionLaughs is a document of n levels whose aliases each stand for
// ten of the level below: 10^n strings once expanded.
func billionLaughs(n int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for k := range 10 {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// TestAliasBound checks that documents whose aliases stand for more than
// MaxAliasNodes nodes fail before they are decoded, naming the line of
// the alias that crosses the bound, fast even for 10^9 nodes, and that
// aliases within the bound decode as before.
func TestAliasBound(t *testing.T) {
	var v map[string]any
	for _, doc := range []string{billionLaughs(9), billionLaughs(4), "a: &a [x, *a]\n"} {
		_, err := Parse([]byte(doc))
		if doc == "a: &a [x, *a]\n" {
			if err == nil {
				t.Errorf("Parse(%q) accepted an alias inside its own anchor", doc)
			}
			continue
		}
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 4: aliases too large: up to *l2 they stand for more than 10000 nodes") {
			t.Errorf("Parse(billion laughs): %v, want the alias bound at line 4", err)
		}
		if err := Unmarshal([]byte(doc), &v); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Unmarshal(billion laughs): %v, want ErrTooLarge", err)
		}
	}
	if err := Unmarshal([]byte(billionLaughs(2)), &v); err != nil || len(v) != 3 {
		t.Errorf("Unmarshal(1,220 aliased nodes) = %v, %v", v, err)
	}
}

// TestSizeBound checks that files and documents over MaxSize are refused
// before they are parsed, naming the file and the limit, and that one of
// exactly MaxSize bytes is read.
func TestSizeBound(t *testing.T) {
	dir := t.TempDir()
	// A valid document up to its last line, which is not YAML: the size,
	// not the syntax, must refuse it.
	big := strings.Repeat("# padding\n", MaxSize/10) + "name: [\n"
	path := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	want := fmt.Sprintf("%s: %d bytes, too large: a YAML file may hold at most 1 MiB (1048576 bytes)", path, len(big))
	if !errors.Is(err, ErrTooLarge) || err.Error() != want {
		t.Errorf("ReadFile(%d bytes): %v, want %q", len(big), err, want)
	}
	if _, err := Parse([]byte(big)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Parse(%d bytes): %v, want ErrTooLarge", len(big), err)
	}
	var v outer
	if err := Unmarshal([]byte(big), &v); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Unmarshal(%d bytes): %v, want ErrTooLarge", len(big), err)
	}
	exact := "name: a\n" + strings.Repeat("#", MaxSize-len("name: a\n"))
	if err := os.WriteFile(path, []byte(exact), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(path)
	if err != nil || len(b) != MaxSize {
		t.Fatalf("ReadFile(MaxSize bytes): %d bytes, %v", len(b), err)
	}
	if err := Unmarshal(b, &v); err != nil || v.Name != "a" {
		t.Errorf("Unmarshal(MaxSize bytes) = %+v, %v", v, err)
	}
}

// picky decodes itself, refusing any value but "ok" with a type error
// naming the value's line, as config.Plot does.
type picky string

func (p *picky) UnmarshalYAML(n *yaml.Node) error {
	if n.Value != "ok" {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: picky: want ok", n.Line)}}
	}
	*p = picky(n.Value)
	return nil
}

// TestAliasErrorsOnce checks that an invalid aliased node, which the
// decoder reports at each use of the alias, is reported once: a value of
// the wrong type (checkTypes), and a value that a type decoding itself
// refuses.
func TestAliasErrorsOnce(t *testing.T) {
	type withPicky struct {
		List []struct {
			P picky `yaml:"p"`
		} `yaml:"list"`
	}
	for _, tc := range []struct {
		doc, msg string
		v        any
	}{
		{"name: a\nlist: [&a {rate: x}, *a, *a, *a, *a, *a, *a, *a]\n", `line 2: rate: want a number, got "x"`, new(outer)},
		{"list: [&a {p: no}, *a, *a, *a, *a, *a]\n", "line 1: picky: want ok", new(withPicky)},
	} {
		err := Unmarshal([]byte(tc.doc), tc.v)
		if err == nil || strings.Count(err.Error(), tc.msg) != 1 {
			t.Errorf("Unmarshal: %v, want %q once", err, tc.msg)
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(tc.doc), &n); err != nil {
			t.Fatal(err)
		}
		err = Decode(&n, tc.v, "thing")
		if err == nil || strings.Count(err.Error(), tc.msg) != 1 {
			t.Errorf("Decode: %v, want %q once", err, tc.msg)
		}
	}
}

// floats decodes itself from a number or a list of numbers, as
// param.Floats does.
type floats []float64

func (f *floats) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var v float64
		if err := n.Decode(&v); err != nil {
			return err
		}
		*f = floats{v}
		return nil
	}
	var vs []float64
	if err := n.Decode(&vs); err != nil {
		return err
	}
	*f = vs
	return nil
}

// TestTypes checks that a value of the wrong type is an error naming its
// key and line, at any depth, through Decode and Unmarshal alike, that a
// fraction is refused where an integer is wanted instead of being
// truncated, and that values of the right type decode.
func TestTypes(t *testing.T) {
	type scalars struct {
		Repeats int     `yaml:"repeats"`
		Seed    uint64  `yaml:"seed"`
		Rate    float64 `yaml:"rate"`
		On      bool    `yaml:"on"`
		Name    string  `yaml:"name"`
	}
	type settings struct {
		Sizes   []int  `yaml:"sizes"`
		Sigma   floats `yaml:"sigma"`
		Inner   *inner `yaml:"inner"`
		scalars `yaml:",inline"`
		Select  map[string][]int  `yaml:"select"`
		Free    map[string]string `yaml:"free"`
		P       picky             `yaml:"p"`
		Any     any               `yaml:"any"`
	}
	good := "repeats: 5\nseed: 0x10\nrate: 2\non: true\nname: 12\nsizes: [1, 2]\nsigma: 1\ninner: {rate: 1e-3}\n" +
		"select: {a: [3]}\nfree: {x: 1.5}\np: ok\nany: [1, x]\nempty:\n"
	for _, tc := range []struct {
		doc, err string
	}{
		{good, ""},
		{"sigma: [0.5, 1]\nrepeats: ~\n", ""},
		{"repeats: five\n", `line 1: repeats: want an integer, got "five"`},
		{"name: a\nrepeats: 5.9\n", "line 2: repeats: want an integer, got 5.9"},
		{"repeats: 1e3\n", "line 1: repeats: want an integer, got 1e3"},
		{"repeats: '5'\n", `line 1: repeats: want an integer, got "5"`},
		{"repeats: 99999999999999999999\n", "line 1: repeats: want an integer, got 99999999999999999999"},
		{"repeats: [5]\n", "line 1: repeats: want an integer, got a list"},
		{"seed: -1\n", "line 1: seed: want an integer >= 0, got -1"},
		{"rate: fast\n", `line 1: rate: want a number, got "fast"`},
		{"on: maybe\n", `line 1: on: want true or false, got "maybe"`},
		{"name: {a: 1}\n", "line 1: name: want a single value, got a mapping"},
		{"sizes: [1, 2.5]\n", "line 1: sizes: want an integer, got 2.5"},
		{"sizes: 3\n", "line 1: sizes: want a list ([a, b, ...]), got 3"},
		{"sigma: [1, x]\n", `line 1: sigma: want a number, got "x"`},
		{"sigma: one\n", `line 1: sigma: want a number, got "one"`},
		{"inner:\n  rate: slow\n", `line 2: rate: want a number, got "slow"`},
		{"inner: 3\n", "line 1: inner: want a mapping (key: value, ...), got 3"},
		{"select: {a: [1, b]}\n", `line 1: a: want an integer, got "b"`},
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(tc.doc), &n); err != nil {
			t.Fatal(err)
		}
		var v settings
		decErr := checkTypes(&n, reflect.TypeOf(&v), "")
		var u settings
		unErr := Unmarshal([]byte(strings.Replace(tc.doc, "empty:\n", "", 1)), &u)
		for _, err := range []error{decErr, unErr} {
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
				t.Errorf("%q: %v, want %q", tc.doc, err, tc.err)
			}
		}
	}
	var v settings
	if err := Unmarshal([]byte(strings.Replace(good, "empty:\n", "", 1)), &v); err != nil || v.Repeats != 5 || v.Seed != 16 || v.Name != "12" || v.Sigma[0] != 1 || v.Inner.Rate != 1e-3 {
		t.Errorf("Unmarshal(good) = %+v, %v", v, err)
	}
}
