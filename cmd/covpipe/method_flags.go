package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/param"
	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"
)

// methodParam is one of fit's flags of method parameters: a config key
// that one or more method types declare (method.Type.Parameters).
type methodParam struct {
	flag  string
	key   string
	decls map[string]param.Decl // by the method type that declares the key
}

// methodParams returns the union of every method type's declared
// parameters, one per key, sorted by key, each with its flag: the key
// with '_' for '-', or, where that is taken by one of the flags
// reserved, prefixed with the first type that declares it (hpe's h
// becomes --hpe-h, since -h is help).
func methodParams(reserved []string) []methodParam {
	byKey := map[string]*methodParam{}
	var keys []string
	for _, typ := range method.Names() {
		for _, d := range method.Types()[typ].Parameters() {
			p := byKey[d.Key]
			if p == nil {
				p = &methodParam{flag: strings.ReplaceAll(d.Key, "_", "-"), key: d.Key, decls: map[string]param.Decl{}}
				if slices.Contains(reserved, p.flag) {
					p.flag = typ + "-" + p.flag
				}
				byKey[d.Key] = p
				keys = append(keys, d.Key)
			}
			p.decls[typ] = d
		}
	}
	slices.Sort(keys)
	out := make([]methodParam, len(keys))
	for i, k := range keys {
		out[i] = *byKey[k]
	}
	return out
}

// types returns the method types that declare the parameter, sorted.
func (p methodParam) types() []string {
	var out []string
	for typ := range p.decls {
		out = append(out, typ)
	}
	slices.Sort(out)
	return out
}

// isSwitch reports whether every type takes the parameter as a bool:
// then its flag is a switch, otherwise a value that the chosen type's
// declaration reads.
func (p methodParam) isSwitch() bool {
	for _, d := range p.decls {
		if d.Kind != param.Bool {
			return false
		}
	}
	return true
}

// cliFlag returns the flag, its usage the help of each declaration with
// the types that give it and their default.
func (p methodParam) cliFlag() cli.Flag {
	type group struct {
		d     param.Decl
		types []string
	}
	var groups []*group
	for _, typ := range p.types() {
		d := p.decls[typ]
		i := slices.IndexFunc(groups, func(g *group) bool { return g.d == d })
		if i < 0 {
			groups = append(groups, &group{d: d})
			i = len(groups) - 1
		}
		groups[i].types = append(groups[i].types, typ)
	}
	var parts []string
	for _, g := range groups {
		s := g.d.Help
		if g.d.Kind == param.List {
			s += ", comma-separated"
		}
		s += " [" + strings.Join(g.types, ", ")
		if g.d.Default != "" {
			s += "; default " + g.d.Default
		}
		parts = append(parts, s+"]")
	}
	usage := strings.Join(parts, "; ")
	if p.isSwitch() {
		return switchFlag(p.flag, usage)
	}
	return &cli.StringFlag{Name: p.flag, Usage: usage}
}

// value reads the flag of the parameter as method type typ declares it.
func (p methodParam) value(c *cli.Context, typ string) (any, error) {
	d, ok := p.decls[typ]
	if !ok {
		return nil, fmt.Errorf("--%s is not a parameter of method type %s (the types that take it: %s)", p.flag, typ, strings.Join(p.types(), ", "))
	}
	if p.isSwitch() {
		return c.Bool(p.flag), nil
	}
	s := strings.TrimSpace(c.String(p.flag))
	var v any
	var err error
	switch d.Kind {
	case param.List:
		if v, err = numbers(s); err != nil {
			err = errors.New("want a number or comma-separated numbers")
		}
	case param.Number:
		if v, err = strconv.ParseFloat(s, 64); err != nil {
			err = errors.New("want a number")
		}
	case param.Int:
		if v, err = strconv.Atoi(s); err != nil {
			err = errors.New("want an integer")
		}
	case param.Bool:
		if v, err = strconv.ParseBool(s); err != nil {
			err = errors.New("want true or false")
		}
	default:
		v = s
	}
	if err != nil {
		return nil, fmt.Errorf("--%s %q: %w", p.flag, s, err)
	}
	return v, nil
}

// numbers parses a comma-separated list of numbers: one number, or a
// list of candidates.
func numbers(s string) (any, error) {
	parts := strings.Split(s, ",")
	list := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, err
		}
		list[i] = v
	}
	if len(list) == 1 {
		return list[0], nil
	}
	return list, nil
}

// paramsFromFlags returns the parameters of method type typ that the
// flags of params set, by key, as a config entry gives them, and checks
// them with the type's constructor: parameters it requires that no flag
// gives are reported together, by flag.
func paramsFromFlags(c *cli.Context, typ string, params []methodParam) (map[string]any, error) {
	t, ok := method.Types()[typ]
	if !ok && typ == "best" {
		return nil, errors.New("fit: --method best chooses among the methods of an experiment file: give --config FILE and the name of its best method")
	}
	if !ok {
		return nil, fmt.Errorf("fit: --method %q: want one of %s, or a method of --config", typ, strings.Join(method.Names(), ", "))
	}
	out := map[string]any{}
	flags := map[string]string{}
	for _, p := range params {
		flags[p.key] = "--" + p.flag
		if !c.IsSet(p.flag) {
			continue
		}
		v, err := p.value(c, typ)
		if err != nil {
			return nil, fmt.Errorf("fit --method %s: %w", typ, err)
		}
		out[p.key] = v
	}
	var node yaml.Node
	if err := node.Encode(out); err != nil {
		return nil, err
	}
	if _, err := t.New(&node); err != nil {
		var missing *param.MissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("fit --method %s: missing %s", typ, missing.Format(func(key string) string { return flags[key] }))
		}
		return nil, fmt.Errorf("fit --method %s: %w", typ, err)
	}
	return out, nil
}
