// Package memlimit refuses sizes before they are allocated: a caller
// estimates, for each setting a user can type (a config key, a flag, a
// function's argument), the memory it makes a call hold, and Check
// compares their sum with a limit, naming the setting that takes the
// most. covpipe run's experiment settings, fit's folds, learn's
// iterations and the library's atom counts and Gram matrices all go
// through it, so that a typed number fails with an error rather than the
// runtime's fatal out-of-memory error.
package memlimit

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Default is the limit of a caller that gives none, 4 GiB: a fixed
// amount rather than a share of the machine's memory, so that what is
// refused does not depend on the machine.
const Default = 4 << 30

// ErrMemory is wrapped by Check's errors.
var ErrMemory = errors.New("over the memory limit")

// Estimate is the memory that one setting makes a call hold.
type Estimate struct {
	// Key names the setting as the user typed it: "repeats",
	// "tasks[0].synthetic.samples", "--iters", "folds".
	Key string
	// What says what it sizes, for the error: "1000000000 cross-validation
	// folds of 12 training items".
	What  string
	Bytes float64
}

// Error is Check's error: the estimates' sum, Total, is over Limit, and
// Estimate, summed over its key, is the most of it.
type Error struct {
	Estimate
	Total float64
	Limit int64
	// Raise says how the caller raises the limit ("" when it cannot).
	Raise string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, about %s", e.Key, e.What, Format(e.Bytes))
	if all := Format(e.Total); all != Format(e.Bytes) {
		fmt.Fprintf(&b, "; about %s in all", all)
	}
	fmt.Fprintf(&b, ", %v of %s: lower %s", ErrMemory, Format(float64(e.Limit)), e.Key)
	if e.Raise != "" {
		fmt.Fprintf(&b, ", or raise the limit (%s)", e.Raise)
	}
	return b.String()
}

// Unwrap returns ErrMemory.
func (e *Error) Unwrap() error { return ErrMemory }

// Resolve returns limit, or Default for 0, and an error for a negative
// limit.
func Resolve(limit int64) (int64, error) {
	if limit < 0 {
		return 0, fmt.Errorf("memory limit %d bytes: want >= 0 (0: %s)", limit, Format(Default))
	}
	return cmp.Or(limit, Default), nil
}

// Check returns nil when the estimates es sum to at most limit bytes (0:
// Default), and otherwise an *Error (wrapping ErrMemory) naming the key
// whose estimates sum to the most, what its first estimate sizes, its
// bytes, the total and the limit; raise says how the caller raises the
// limit ("" when it cannot). A negative limit is an error. The sums are
// of float64, so that sizes whose products overflow an int are still
// compared.
func Check(limit int64, raise string, es ...Estimate) error {
	limit, err := Resolve(limit)
	if err != nil {
		return err
	}
	total := 0.0
	var keys []*Estimate
	for _, e := range es {
		total += e.Bytes
		if i := slices.IndexFunc(keys, func(k *Estimate) bool { return k.Key == e.Key }); i >= 0 {
			keys[i].Bytes += e.Bytes
			continue
		}
		keys = append(keys, &e)
	}
	if total <= float64(limit) {
		return nil
	}
	top := slices.MaxFunc(keys, func(a, b *Estimate) int { return cmp.Compare(a.Bytes, b.Bytes) })
	return &Error{Estimate: *top, Total: total, Limit: limit, Raise: raise}
}

// Format writes an amount of memory in binary units, with three
// significant digits: "626 GiB", "8.94 GiB", "100 bytes".
func Format(b float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for ; i < len(units)-1 && b >= 1024; i++ {
		b /= 1024
	}
	if i == 0 {
		return fmt.Sprintf("%.0f bytes", b)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.3g", b), ".0") + " " + units[i]
}
