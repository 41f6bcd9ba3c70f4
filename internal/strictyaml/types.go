package strictyaml

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checkTypes returns an error naming the line and the key of the first
// value under n that the type t cannot hold: a value that is not a
// number where a number is wanted, a fraction or anything else that is
// not an integer where an integer is (yaml.v3 would truncate 5.9 to 5),
// neither true nor false for a bool, a list or mapping for a single
// value and the reverse. yaml.v3's own type errors name the line and the
// value but not the key. key names n in the error ("" for a document).
//
// Types that decode themselves (yaml.Unmarshaler, encoding.TextUnmarshaler)
// are left to their decoder, except a list type with its own decoder
// (param.Floats, a number or a list of numbers), whose single value or
// items are checked as its elements. Null values are left alone: they
// leave the zero value, which the settings' own checks judge.
func checkTypes(n *yaml.Node, t reflect.Type, key string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == 0 || n.Kind == yaml.DocumentNode || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil // empty documents are the decoder's to refuse
	}
	if decodesItself(t) {
		if t.Kind() != reflect.Slice {
			return nil
		}
		if n.Kind == yaml.ScalarNode {
			return checkTypes(n, t.Elem(), key)
		}
		return checkItems(n, t.Elem(), key)
	}
	switch t.Kind() {
	case reflect.Interface:
		return nil
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return typeError(n, key, "a mapping (key: value, ...)")
		}
		fields := fieldsOf(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if f, ok := fields[k.Value]; ok {
				if err := checkTypes(n.Content[i+1], f.Type, k.Value); err != nil {
					return err
				}
			}
		}
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return typeError(n, key, "a mapping (key: value, ...)")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkTypes(n.Content[i+1], t.Elem(), n.Content[i].Value); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return typeError(n, key, "a list ([a, b, ...])")
		}
		return checkItems(n, t.Elem(), key)
	}
	want := "a single value"
	ok := false
	tag := n.ShortTag()
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		want, ok = "an integer", tag == "!!int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		want, ok = "an integer >= 0", tag == "!!int"
	case reflect.Float32, reflect.Float64:
		want, ok = "a number", tag == "!!int" || tag == "!!float"
	case reflect.Bool:
		want, ok = "true or false", tag == "!!bool"
	case reflect.String:
		ok = true
	}
	if n.Kind != yaml.ScalarNode {
		return typeError(n, key, want)
	}
	if ok && t.Kind() != reflect.String {
		// Out of the type's range (an integer that overflows, a negative
		// one for a uint).
		ok = n.Decode(reflect.New(t).Interface()) == nil
	}
	if !ok {
		return typeError(n, key, want)
	}
	return nil
}

// checkItems checks the items of the sequence n as values of type elem.
func checkItems(n *yaml.Node, elem reflect.Type, key string) error {
	if n.Kind != yaml.SequenceNode {
		return nil
	}
	for _, item := range n.Content {
		if err := checkTypes(item, elem, key); err != nil {
			return err
		}
	}
	return nil
}

var (
	yamlUnmarshaler = reflect.TypeFor[yaml.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	nodeType        = reflect.TypeFor[yaml.Node]()
)

// decodesItself reports whether values of t are decoded by their own
// method, or are kept as nodes.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t == nodeType || p.Implements(yamlUnmarshaler) || p.Implements(textUnmarshaler)
}

// typeError is the error for the value n of key, which is not what the
// key wants.
func typeError(n *yaml.Node, key, want string) error {
	var got string
	switch n.Kind {
	case yaml.MappingNode:
		got = "a mapping"
	case yaml.SequenceNode:
		got = "a list"
	default:
		got = n.Value
		if n.ShortTag() == "!!str" || strings.TrimSpace(got) != got || got == "" {
			got = fmt.Sprintf("%q", got)
		}
	}
	if key == "" {
		return fmt.Errorf("line %d: want %s, got %s", n.Line, want, got)
	}
	return fmt.Errorf("line %d: %s: want %s, got %s", n.Line, key, want, got)
}
