// Package panictest runs a call under test that must report bad input as
// an error, recovering a panic so that it fails one case of a table, not
// the whole test binary.
package panictest

// Recover runs f and returns the value it panicked with (nil when it
// returned) and the error it returned.
func Recover(f func() error) (recovered any, err error) {
	defer func() { recovered = recover() }()
	return nil, f()
}
