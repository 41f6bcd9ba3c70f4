// Package enum names the values of small enumerations: a table of names
// indexed by value gives a type's String method and its parser, so that
// the two cannot disagree.
package enum

import (
	"fmt"
	"reflect"
)

// Names is the table of names of an enumeration E, indexed by value, as
// in Names[Border]{ZeroPad: "zero", Symmetric: "symmetric"}. Every name
// is distinct and not empty.
type Names[E ~int | ~uint8] []string

// String returns the name of v, or "Type(v)" with E's type name for a
// value without one, as fmt prints an invalid value.
func (n Names[E]) String(v E) string {
	if i := int(v); i >= 0 && i < len(n) && n[i] != "" {
		return n[i]
	}
	return fmt.Sprintf("%s(%d)", reflect.TypeFor[E]().Name(), int(v))
}

// Parse returns the value named s, and false when no value is.
func (n Names[E]) Parse(s string) (E, bool) {
	for i, name := range n {
		if name != "" && name == s {
			return E(i), true
		}
	}
	return 0, false
}
