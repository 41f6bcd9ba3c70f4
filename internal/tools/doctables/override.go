package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Variant returns the run's config file with its overrides applied, as
// YAML (comments of the shipped config kept where yaml.v3 can place them).
func (r *Run) Variant(root string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(root, r.Config))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	if len(r.Overrides) == 0 {
		return b, nil
	}
	out, err := applyOverrides(b, r.Overrides)
	if err != nil {
		return nil, fmt.Errorf("run %s: %s: %w", r.ID, r.Config, err)
	}
	return out, nil
}

// applyOverrides applies overrides to the YAML document b in order.
func applyOverrides(b []byte, overrides []Override) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("not a YAML document")
	}
	for i, o := range overrides {
		if err := apply(doc.Content[0], o); err != nil {
			return nil, fmt.Errorf("override %d (%s %s): %w", i+1, o.verb(), o.path(), err)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func apply(root *yaml.Node, o Override) error {
	parts := strings.Split(o.path(), ".")
	for _, p := range parts {
		if p == "" {
			return fmt.Errorf("empty segment in the path")
		}
	}
	parent, err := walk(root, parts[:len(parts)-1])
	if err != nil {
		return err
	}
	last := parts[len(parts)-1]
	value := o.Value
	switch {
	case o.Add != "":
		n, err := child(parent, last)
		if err != nil {
			return err
		}
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s is not a list", o.Add)
		}
		n.Content = append(n.Content, &value)
		return nil
	case o.Delete != "":
		i, err := index(parent, last)
		if err != nil {
			return err
		}
		if parent.Kind == yaml.MappingNode {
			parent.Content = append(parent.Content[:i-1], parent.Content[i+1:]...)
		} else {
			parent.Content = append(parent.Content[:i], parent.Content[i+1:]...)
		}
		return nil
	}
	i, err := index(parent, last)
	if err == nil {
		parent.Content[i] = &value
		return nil
	}
	if parent.Kind != yaml.MappingNode {
		return err
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}
	parent.Content = append(parent.Content, key, &value)
	return nil
}

// walk follows path from n.
func walk(n *yaml.Node, path []string) (*yaml.Node, error) {
	for i, p := range path {
		c, err := child(n, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(path[:i], "."), err)
		}
		n = c
	}
	return n, nil
}

func child(n *yaml.Node, key string) (*yaml.Node, error) {
	i, err := index(n, key)
	if err != nil {
		return nil, err
	}
	return n.Content[i], nil
}

// index returns the position in n.Content of the value that key names: a
// mapping's value under key, or a sequence's element whose name is key
// (or whose index it is).
func index(n *yaml.Node, key string) (int, error) {
	switch n.Kind {
	case yaml.MappingNode:
		var keys []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return i + 1, nil
			}
			keys = append(keys, n.Content[i].Value)
		}
		return 0, fmt.Errorf("no key %q (keys: %s)", key, strings.Join(keys, ", "))
	case yaml.SequenceNode:
		var names []string
		for i, e := range n.Content {
			if e.Kind != yaml.MappingNode {
				continue
			}
			for j := 0; j+1 < len(e.Content); j += 2 {
				if e.Content[j].Value == "name" {
					if e.Content[j+1].Value == key {
						return i, nil
					}
					names = append(names, e.Content[j+1].Value)
				}
			}
		}
		if k, err := strconv.Atoi(key); err == nil && k >= 0 && k < len(n.Content) {
			return k, nil
		}
		return 0, fmt.Errorf("no element named %q (names: %s)", key, strings.Join(names, ", "))
	}
	return 0, fmt.Errorf("%q: not a mapping or a list", key)
}

// yamlData returns the data of the YAML document b as JSON values
// (comments, order of keys and layout dropped), for comparing configs.
func yamlData(b []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, err
	}
	return out, nil
}
