// Package strictyaml decodes YAML nodes into structs, refusing keys the
// struct does not have at any depth, with errors that name the key, its
// line, the section and the keys allowed there. yaml.v3's Node.Decode has
// no strict mode of its own (only Decoder.KnownFields does), and the parts
// of an experiment file are decoded separately, each by its own type.
//
// It also bounds what a file can make the decoder do: files over MaxSize
// are refused before they are parsed, and documents whose aliases stand
// for more than MaxAliasNodes nodes (a "billion laughs" document) before
// they are decoded; an error that the same aliased node makes at each of
// its uses is reported once.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxSize is the largest YAML file, in bytes, that ReadFile, Parse and
// Unmarshal accept: 1 MiB, hundreds of times the largest experiment file
// or manifest covpipe ships, and small enough that parsing it takes
// milliseconds.
const MaxSize = 1 << 20

// MaxAliasNodes bounds the nodes that the aliases of a document stand for,
// each alias counting every node of what it names (with the aliases inside
// that expanded in turn): enough to reuse a few method settings, far too
// few for a document whose aliases of aliases grow exponentially.
const MaxAliasNodes = 10000

// ErrTooLarge is wrapped by the errors for a file over MaxSize and for
// aliases expanding beyond MaxAliasNodes.
var ErrTooLarge = errors.New("too large")

// ReadFile reads the YAML file at path, refusing one over MaxSize before
// reading more of it; that error names the file and the limit.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSize {
		size := "more than 1 MiB"
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fmt.Sprintf("%d bytes", fi.Size())
		}
		return nil, fmt.Errorf("%s: %s, %w: a YAML file may hold at most 1 MiB (%d bytes)", path, size, ErrTooLarge, MaxSize)
	}
	return b, nil
}

// Parse parses the YAML document of b into a node tree, without
// expanding its aliases. It returns an error wrapping ErrTooLarge, before
// parsing, when b is over MaxSize, and after parsing when the document's
// aliases stand for more than MaxAliasNodes nodes, naming the line of the
// alias that crosses the bound; and an error naming its line for a second
// document (after a "---" line), which would otherwise be ignored. An
// empty b gives an empty node.
func Parse(b []byte) (*yaml.Node, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%d bytes, %w: a YAML document may hold at most 1 MiB (%d bytes)", len(b), ErrTooLarge, MaxSize)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var root, next yaml.Node
	if err := dec.Decode(&root); err != nil && err != io.EOF {
		return nil, err
	}
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("line %d: a second YAML document: a file holds one (remove the \"---\" line and what follows, or merge the two)", next.Line)
	case err != io.EOF:
		return nil, fmt.Errorf("a second YAML document: %w", err)
	}
	if err := checkAliases(&root); err != nil {
		return nil, err
	}
	return &root, nil
}

// checkAliases returns an error when the aliases of the tree at root
// stand for more than MaxAliasNodes nodes in all.
func checkAliases(root *yaml.Node) error {
	sizes := map[*yaml.Node]int{}
	total := 0
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			total += expanded(n.Alias, sizes)
			if total > MaxAliasNodes {
				return fmt.Errorf("line %d: aliases %w: up to *%s they stand for more than %d nodes; write the values out, or alias less", n.Line, ErrTooLarge, n.Value, MaxAliasNodes)
			}
			return nil
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}

// expanded returns the number of nodes of n with its aliases expanded,
// saturating above MaxAliasNodes; sizes memoises it per node, so that
// nested aliases are counted in time linear in the document.
func expanded(n *yaml.Node, sizes map[*yaml.Node]int) int {
	if s, ok := sizes[n]; ok {
		return s
	}
	sizes[n] = MaxAliasNodes + 1 // a node that contains itself is too large
	s := 1
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		s = expanded(n.Alias, sizes)
	}
	for _, c := range n.Content {
		s = min(s+expanded(c, sizes), MaxAliasNodes+1)
	}
	sizes[n] = s
	return s
}

// once drops the repeated messages of a *yaml.TypeError: the errors of an
// aliased node, which the decoder reports at each use of the alias with
// the line of the node itself.
func once(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var msgs []string
	for _, m := range te.Errors {
		if !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	te.Errors = msgs
	return err
}

// Decode checks that every mapping key of n, recursively, names a field of
// the struct that v points to (by its yaml tag, with inline fields
// flattened), and that every value has the type of its field (see
// checkTypes: an error naming the value's key and line, where yaml.v3's
// would name the line only, and a fraction where an integer is wanted is
// refused instead of truncated), then decodes n into v. section names n
// in errors, e.g. "method rsr".
func Decode(n *yaml.Node, v any, section string) error {
	if err := check(n, reflect.TypeOf(v), section); err != nil {
		return err
	}
	if err := checkTypes(n, reflect.TypeOf(v), ""); err != nil {
		return err
	}
	return once(n.Decode(v))
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
	Fields(t, func(key string, f reflect.StructField) { out[key] = f })
	return out
}

// Keys lists the yaml keys of struct type t in field order, inline fields
// flattened in place.
func Keys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	Fields(t, func(key string, _ reflect.StructField) { keys = append(keys, key) })
	return keys
}

// Fields calls fn for each yaml key of struct type t and its field, in
// field order, with the fields of inline structs in place: the keys that
// Decode accepts.
func Fields(t reflect.Type, fn func(key string, f reflect.StructField)) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
		case strings.Contains(opts, "inline"):
			Fields(f.Type, fn)
		case name == "":
			fn(strings.ToLower(f.Name), f)
		default:
			fn(name, f)
		}
	}
}

// Unmarshal decodes the YAML document of b into v, refusing a key
// that v's struct does not have (yaml.v3's Decoder.KnownFields, whose
// error names the key, its line and the Go type), a value of the wrong
// type (as Decode does) and first the documents that Parse refuses. An
// empty b gives io.EOF.
func Unmarshal(b []byte, v any) error {
	root, err := Parse(b)
	if err != nil {
		return err
	}
	if err := checkTypes(root, reflect.TypeOf(v), ""); err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return once(dec.Decode(v))
}
