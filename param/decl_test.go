package param

import (
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	Lambda Floats `yaml:"lambda,omitempty" help:"weight" default:"0.1"`
	Rule   string `yaml:"rule,omitempty" help:"rule"`
}

type outer struct {
	Sigma  Floats `yaml:"sigma" help:"σ" default:"(d−1)/2"`
	inner  `yaml:",inline"`
	Gamma  *float64 `yaml:"gamma,omitempty" help:"γ"`
	Tol    float64  `yaml:"tolerance" help:"tol" default:"1e-6"`
	Steps  int      `yaml:"steps" help:"steps"`
	Switch bool     `yaml:"switch_on" help:"on"`
	Hidden int      `yaml:"-"`
	cache  int
}

func TestDeclare(t *testing.T) {
	want := []Decl{
		{Key: "sigma", Help: "σ", Kind: List, Default: "(d−1)/2"},
		{Key: "lambda", Help: "weight", Kind: List, Default: "0.1"},
		{Key: "rule", Help: "rule", Kind: String},
		{Key: "gamma", Help: "γ", Kind: Number},
		{Key: "tolerance", Help: "tol", Kind: Number, Default: "1e-6"},
		{Key: "steps", Help: "steps", Kind: Int},
		{Key: "switch_on", Help: "on", Kind: Bool},
	}
	for _, p := range []any{outer{}, &outer{}} {
		if got := Declare(p); !reflect.DeepEqual(got, want) {
			t.Errorf("Declare(%T) =\n%+v\nwant\n%+v", p, got, want)
		}
	}
}

func TestDeclarePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    any
		want string
	}{
		{"not a struct", 3, "int is not a struct"},
		{"nil", nil, "is not a struct"},
		{"no help", struct {
			X int `yaml:"x"`
		}{}, "X has no help tag"},
		{"no key", struct {
			X int `help:"x"`
		}{}, "X has no yaml key"},
		{"bad type", struct {
			X []string `yaml:"x" help:"x"`
		}{}, "X has type []string, not a parameter kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			Declare(tc.p)
		})
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Number: "number", List: "list", Int: "int", String: "string", Bool: "bool", Kind(9): "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestMissing(t *testing.T) {
	flag := func(k string) string { return "--" + strings.ReplaceAll(k, "_", "-") }
	for _, tc := range []struct {
		add       [][]string
		err, flag string
	}{
		{nil, "", ""},
		{[][]string{{"c"}}, "missing c", "--c"},
		{[][]string{{"sigma"}, {"lambda", "lambda_ratio"}}, "missing sigma, lambda or lambda_ratio", "--sigma, --lambda or --lambda-ratio"},
		{[][]string{{"dictionary"}, {"sigma"}, {"c"}}, "missing dictionary, sigma, c", "--dictionary, --sigma, --c"},
	} {
		var m Missing
		for _, keys := range tc.add {
			m.Add(keys...)
		}
		err := m.Err()
		if tc.err == "" {
			if err != nil {
				t.Errorf("nothing missing: %v", err)
			}
			continue
		}
		me, ok := err.(*MissingError)
		if !ok {
			t.Fatalf("%v: error %T %v, want a *MissingError", tc.add, err, err)
		}
		if err.Error() != tc.err || me.Format(flag) != tc.flag || !reflect.DeepEqual(me.Keys, tc.add) {
			t.Errorf("%v: error %v, flags %q; want %q, %q", tc.add, err, me.Format(flag), tc.err, tc.flag)
		}
	}
}
