// Package panictest runs a call under test that must report bad input as
// an error, recovering a panic so that it fails one case of a table, not
// the whole test binary.
package panictest

import (
	"strings"
	"testing"
)

// Recover runs f and returns the value it panicked with (nil when it
// returned) and the error it returned.
func Recover(f func() error) (recovered any, err error) {
	defer func() { recovered = recover() }()
	return nil, f()
}

// WantError runs f as Recover does and fails t when f panicked or did not
// return an error containing want: one case of a table of bad inputs.
func WantError(t testing.TB, f func() error, want string) {
	t.Helper()
	recovered, err := Recover(f)
	if recovered != nil {
		t.Errorf("panic: %v", recovered)
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}
