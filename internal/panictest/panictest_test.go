package panictest

import (
	"errors"
	"testing"
)

func TestRecover(t *testing.T) {
	want := errors.New("bad input")
	if r, err := Recover(func() error { return want }); r != nil || err != want {
		t.Errorf("returning call: recovered %v, error %v", r, err)
	}
	if r, err := Recover(func() error { panic("index out of range") }); r != "index out of range" || err != nil {
		t.Errorf("panicking call: recovered %v, error %v", r, err)
	}
}
