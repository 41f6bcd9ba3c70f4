// Package strictyaml decodes YAML nodes into structs, refusing keys the
// struct does not have at any depth, with errors that name the key, its
// line, the section and the keys allowed there. yaml.v3's Node.Decode has
// no strict mode of its own (only Decoder.KnownFields does), and the parts
// of an experiment file are decoded separately, each by its own type.
package strictyaml

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode checks that every mapping key of n, recursively, names a field of
// the struct that v points to (by its yaml tag, with inline fields
// flattened), then decodes n into v. section names n in errors, e.g.
// "method rsr".
func Decode(n *yaml.Node, v any, section string) error {
	if err := check(n, reflect.TypeOf(v), section); err != nil {
		return err
	}
	return n.Decode(v)
}

func check(n *yaml.Node, t reflect.Type, section string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := fieldsOf(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			f, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("line %d: unknown key %q in %s (allowed: %s)", k.Line, k.Value, section, strings.Join(Keys(t), ", "))
			}
			if err := check(n.Content[i+1], f.Type, k.Value); err != nil {
				return err
			}
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for _, item := range n.Content {
			if err := check(item, t.Elem(), section); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldsOf maps the yaml keys of struct type t to their fields.
func fieldsOf(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	walk(t, func(key string, f reflect.StructField) { out[key] = f })
	return out
}

// Keys lists the yaml keys of struct type t in field order, inline fields
// flattened in place.
func Keys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	walk(t, func(key string, _ reflect.StructField) { keys = append(keys, key) })
	return keys
}

// walk calls fn for each yaml key of struct type t in field order, with
// the fields of inline structs in place.
func walk(t reflect.Type, fn func(key string, f reflect.StructField)) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
		case strings.Contains(opts, "inline"):
			walk(f.Type, fn)
		case name == "":
			fn(strings.ToLower(f.Name), f)
		default:
			fn(name, f)
		}
	}
}

// Unmarshal decodes the first YAML document of b into v, refusing a key
// that v's struct does not have (yaml.v3's Decoder.KnownFields, whose
// error names the key, its line and the Go type). An empty b gives io.EOF.
func Unmarshal(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}
