package strictyaml

import (
	"errors"
	"io"
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
