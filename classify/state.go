package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// State is a fitted method's saved form (Fitted.Save), from which the
// method's Load restores it: a record the method encodes as JSON and
// named arrays of float64, which a model folder keeps in model.json and
// as .npy files beside it (package model).
type State struct {
	// Record is the method's own record, a JSON value (SetRecord).
	Record json.RawMessage `json:"record,omitempty"`
	// Arrays are the named arrays; their names are file names' stems:
	// lower-case letters, digits and '-'.
	Arrays map[string]Array `json:"-"`
}

// Array is an array of a State: its shape and its values, row-major.
type Array struct {
	Shape []int
	Data  []float64
}

// SetRecord sets the state's record to the JSON encoding of v.
func (s *State) SetRecord(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("state record: %w", err)
	}
	s.Record = b
	return nil
}

// DecodeRecord decodes the state's record into v strictly: a field that
// v does not have is an error, as is a missing record.
func (s *State) DecodeRecord(v any) error {
	if len(s.Record) == 0 {
		return fmt.Errorf("state has no record")
	}
	dec := json.NewDecoder(bytes.NewReader(s.Record))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("state record: %w", err)
	}
	return nil
}

// Put adds the array name of the given shape, whose values data holds
// (kept, not copied).
func (s *State) Put(name string, data []float64, shape ...int) {
	if s.Arrays == nil {
		s.Arrays = map[string]Array{}
	}
	s.Arrays[name] = Array{Shape: slices.Clone(shape), Data: data}
}

// Get returns the values of the array name, checking that it has the
// given shape; it returns an error naming the array when it is missing
// or has another shape.
func (s *State) Get(name string, shape ...int) ([]float64, error) {
	a, ok := s.Arrays[name]
	if !ok {
		return nil, fmt.Errorf("state has no array %q (it has %v)", name, slices.Sorted(maps.Keys(s.Arrays)))
	}
	if !slices.Equal(a.Shape, shape) {
		return nil, fmt.Errorf("state array %q has shape %v, want %v", name, a.Shape, shape)
	}
	n := 1
	for _, k := range shape {
		n *= k
	}
	if len(a.Data) != n {
		return nil, fmt.Errorf("state array %q has %d values for shape %v", name, len(a.Data), shape)
	}
	return a.Data, nil
}

// Shape returns the shape of the array name, nil when there is none.
func (s *State) Shape(name string) []int { return slices.Clone(s.Arrays[name].Shape) }

// Nest adds the arrays of sub, a state that s is made of (a region's, a
// chosen method's), under names prefixed by prefix, and returns sub's
// record for s's own record to hold.
func (s *State) Nest(prefix string, sub *State) json.RawMessage {
	for name, a := range sub.Arrays {
		s.Put(prefix+name, a.Data, a.Shape...)
	}
	return sub.Record
}

// Sub returns the state that Nest added under prefix, whose record is
// rec.
func (s *State) Sub(prefix string, rec json.RawMessage) *State {
	out := &State{Record: rec}
	for name, a := range s.Arrays {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			out.Put(rest, a.Data, a.Shape...)
		}
	}
	return out
}
