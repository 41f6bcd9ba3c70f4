package param

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"
)

// Floats is a parameter given as a YAML number or list of numbers:
// `sigma: 1` or `sigma: [0.5, 1, 2]`. A list is a set of candidates that
// Select chooses among by cross-validation; a method declares which of its
// parameters may be lists by giving them this type.
type Floats []float64

// UnmarshalYAML accepts a number or a sequence of numbers.
func (f *Floats) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		var v float64
		if err := n.Decode(&v); err != nil {
			return err
		}
		*f = Floats{v}
		return nil
	case yaml.SequenceNode:
		var vs []float64
		if err := n.Decode(&vs); err != nil {
			return err
		}
		*f = vs
		return nil
	}
	return fmt.Errorf("line %d: want a number or a list of numbers", n.Line)
}

// CheckList checks f as a list of candidates: non-empty when required,
// and no value twice. It does not judge the values: their rules belong to
// the packages whose parameters they are (a kernel's σ to spd, a sparsity
// weight to rsr), which the methods ask for each value.
func (f Floats) CheckList(name string, required bool) error {
	if len(f) == 0 && required {
		return fmt.Errorf("%s is required", name)
	}
	for i, v := range f {
		for _, w := range f[:i] {
			if w == v {
				return fmt.Errorf("%s lists %v twice", name, v)
			}
		}
	}
	return nil
}

// Check validates a parameter list whose values are the caller's own to
// judge (a ridge, an SVM's C): every value finite and in (lo, ∞), or
// [lo, ∞) when inclusive, then CheckList.
func (f Floats) Check(name string, required bool, lo float64, inclusive bool) error {
	for _, v := range f {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || (!inclusive && v == lo) {
			op := ">"
			if inclusive {
				op = ">="
			}
			return fmt.Errorf("%s = %v, want finite and %s %v", name, v, op, lo)
		}
	}
	return f.CheckList(name, required)
}
