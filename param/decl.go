package param

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/covpipe/covpipe/internal/enum"
	"github.com/covpipe/covpipe/internal/strictyaml"
)

// Kind is what a declared parameter's value is.
type Kind int

// The kinds of parameter values.
const (
	// Number is one float64 (a field of type float64 or *float64).
	Number Kind = iota
	// List is a number or a list of candidates (a field of type Floats).
	List
	// Int is one integer.
	Int
	// String is one string, often a name from a table.
	String
	// Bool is a switch.
	Bool
)

var kindNames = enum.Names[Kind]{Number: "number", List: "list", Int: "int", String: "string", Bool: "bool"}

// String returns the kind's name: number, list, int, string or bool.
func (k Kind) String() string { return kindNames.String(k) }

// Decl is a parameter as its parameters struct declares it, from the
// field's type and tags:
//
//	Sigma Floats `yaml:"sigma" json:"sigma" help:"kernel σ" default:"(d−1)/2"`
//
// The default tag is text for help and documentation; the method that
// owns the struct applies the default itself, since some depend on the
// data (σ on the matrix size) or on other parameters.
type Decl struct {
	// Key is the configuration key: the field's yaml name.
	Key string
	// Help is a one-line description: the help tag.
	Help string
	// Kind is what the value is, from the field's type.
	Kind Kind
	// Default describes the value taken when the key is not given (the
	// default tag); empty when there is none or the zero value means
	// none.
	Default string
}

var floatsType = reflect.TypeFor[Floats]()

// Declare returns the parameters that the struct p (or a pointer to one)
// declares, in field order, the fields of inline embedded structs
// (`yaml:",inline"`) in place: the keys that strict decoding accepts
// (strictyaml.Fields). Every exported field needs a yaml key and a help
// tag, and a type of one of the Kinds; Declare panics otherwise,
// since a parameters struct is the program's own.
func Declare(p any) []Decl {
	t := reflect.TypeOf(p)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("param.Declare: %T is not a struct", p))
	}
	var out []Decl
	strictyaml.Fields(t, func(key string, f reflect.StructField) {
		where := t.String() + "." + f.Name
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == "" {
			panic("param.Declare: " + where + " has no yaml key")
		}
		d := Decl{Key: key, Help: f.Tag.Get("help"), Default: f.Tag.Get("default")}
		if d.Help == "" {
			panic("param.Declare: " + where + " has no help tag")
		}
		var ok bool
		if d.Kind, ok = kindOf(f.Type); !ok {
			panic(fmt.Sprintf("param.Declare: %s has type %s, not a parameter kind", where, f.Type))
		}
		out = append(out, d)
	})
	return out
}

// kindOf returns the kind of values of type t.
func kindOf(t reflect.Type) (Kind, bool) {
	if t == floatsType {
		return List, true
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Float64, reflect.Float32:
		return Number, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Int, true
	case reflect.String:
		return String, true
	case reflect.Bool:
		return Bool, true
	}
	return 0, false
}

// MissingError reports every required parameter that was not given, at
// once. Each entry is a key, or keys of which one is required.
type MissingError struct {
	Keys [][]string
}

// Missing collects the required parameters not given; its Err is nil
// when none are missing.
type Missing struct{ keys [][]string }

// Add records a missing parameter: one key, or several of which one is
// required.
func (m *Missing) Add(keys ...string) { m.keys = append(m.keys, keys) }

// Err returns a *MissingError of what Add recorded, or nil.
func (m *Missing) Err() error {
	if len(m.keys) == 0 {
		return nil
	}
	return &MissingError{Keys: m.keys}
}

// Error lists the missing keys: "missing sigma, c" or "missing lambda or
// lambda_ratio".
func (e *MissingError) Error() string {
	return "missing " + e.Format(func(key string) string { return key })
}

// Format lists the missing parameters by the names that name gives
// their keys (a command's flags), alternatives joined by "or".
func (e *MissingError) Format(name func(key string) string) string {
	var groups []string
	for _, alt := range e.Keys {
		var names []string
		for _, k := range alt {
			names = append(names, name(k))
		}
		groups = append(groups, strings.Join(names, " or "))
	}
	return strings.Join(groups, ", ")
}
