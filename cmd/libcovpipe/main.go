// Command libcovpipe is covpipe's C ABI: built with
//
//	go build -buildmode=c-shared -o python/covpipe/_lib/libcovpipe.so ./cmd/libcovpipe
//
// it is a shared library whose exported functions (covpipe_*) give other
// languages the SPD geometry of package spd, the extraction of package
// describe and the models of package model. Python's covpipe package
// (python/covpipe) calls it through ctypes.
//
// # Conventions
//
// Every function that can fail returns an error message as a C string
// (NULL on success) that the caller frees with covpipe_free. Its first
// two bytes say what kind of error it is, so that a caller can raise the
// matching exception: "v:" bad input or parameters (covpipe's message,
// naming the input), "c:" cancelled through the call's cancel token, "o:"
// a file that cannot be opened or written, "r:" an internal error (a
// recovered panic, with its stack). No call panics across the boundary:
// a panic of the call's goroutine is recovered into an "r:" error.
//
// Arrays cross as pointers to C-contiguous float64 buffers with their
// shape: n d×d matrices are n·d·d doubles, row-major, the layout of a
// NumPy array of shape (n, d, d). A call reads the caller's buffers only
// while it runs and copies what the library keeps or modifies (an
// spd.Set owns and symmetrises its data), so that Go holds no pointer to
// the caller's memory once the call returns (the cgo pointer rules).
// Results whose size the caller cannot know in advance (extracted
// descriptors, predictions, feature vectors) are returned as a result
// handle, whose arrays the caller sizes with covpipe_result_shape and
// copies into buffers of its own with covpipe_result_copy.
//
// Handles (models, results, cancel tokens) are runtime/cgo Handles,
// released with covpipe_release. Options and parameters cross as JSON
// text, so that the ABI stays small as methods and options are added.
//
// # Cancellation
//
// Every long call takes a cancel token from covpipe_cancel_new (0: none).
// covpipe_cancel, safe to call from any thread while the call runs,
// cancels the token's context: the call then returns a "c:" error within
// the time of one unit of the library's work (a Gram row, a query, an
// image), as covpipe's commands stop on SIGINT. A token is cancelled for
// good; release it with covpipe_release.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/cgo"
	"runtime/debug"
	"unsafe"

	"github.com/covpipe/covpipe/spd"
)

func main() {}

// call runs f and returns its error as a C string for the caller to free
// (covpipe_free), prefixed by its kind (see the package documentation),
// or nil; a panic of f becomes an internal error with its stack.
func call(f func() error) (msg *C.char) {
	defer func() {
		if r := recover(); r != nil {
			msg = cString(fmt.Sprintf("r:covpipe: internal error: %v\n%s", r, debug.Stack()))
		}
	}()
	if err := f(); err != nil {
		return cString(errorKind(err) + ":" + err.Error())
	}
	return nil
}

// errorKind is the prefix of err's message: c for a cancelled context, o
// for a file that cannot be read or written, v for anything else, which
// is the library's refusal of its input.
func errorKind(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "c"
	case errors.As(err, &pe), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return "o"
	}
	return "v"
}

// cString returns s in C memory, which the caller frees (covpipe_free).
func cString(s string) *C.char { return C.CString(s) }

// goString returns the C string p as a Go string, "" for NULL.
func goString(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// setText stores s in *out as a C string for the caller to free.
func setText(out **C.char, s string) error {
	if out == nil {
		return errors.New("a NULL pointer for the text result")
	}
	*out = cString(s)
	return nil
}

//export covpipe_free
func covpipe_free(p *C.char) { C.free(unsafe.Pointer(p)) }

// token is a cancel token: the context of the calls given it.
type token struct {
	ctx    context.Context
	cancel context.CancelFunc
}

//export covpipe_cancel_new
func covpipe_cancel_new() uintptr {
	ctx, cancel := context.WithCancel(context.Background())
	return uintptr(cgo.NewHandle(&token{ctx, cancel}))
}

// covpipe_cancel cancels the calls that run with the token t, and those
// that will; an invalid token is an error.
//
//export covpipe_cancel
func covpipe_cancel(t uintptr) *C.char {
	return call(func() error {
		tok, err := handleOf[*token](t, "cancel token")
		if err != nil {
			return err
		}
		tok.cancel()
		return nil
	})
}

// covpipe_release releases the handle h (a model, a result or a cancel
// token, which it cancels); releasing a handle twice is an error.
//
//export covpipe_release
func covpipe_release(h uintptr) *C.char {
	return call(func() error {
		if h == 0 {
			return errors.New("release: handle 0")
		}
		v := cgo.Handle(h).Value()
		if tok, ok := v.(*token); ok {
			tok.cancel()
		}
		cgo.Handle(h).Delete()
		return nil
	})
}

// contextOf returns the context of the cancel token t, the background
// context for 0.
func contextOf(t uintptr) (context.Context, error) {
	if t == 0 {
		return context.Background(), nil
	}
	tok, err := handleOf[*token](t, "cancel token")
	if err != nil {
		return nil, err
	}
	return tok.ctx, nil
}

// handleOf returns the value of the handle h, which must be a T, what
// naming it in errors. An invalid handle (released, or never made)
// panics in cgo.Handle.Value, which call recovers.
func handleOf[T any](h uintptr, what string) (T, error) {
	var zero T
	if h == 0 {
		return zero, fmt.Errorf("%s: handle 0", what)
	}
	v, ok := cgo.Handle(h).Value().(T)
	if !ok {
		return zero, fmt.Errorf("%s: handle %d is a %T", what, h, cgo.Handle(h).Value())
	}
	return v, nil
}

// newHandle returns a handle of v in *out.
func newHandle(out *uintptr, v any) error {
	if out == nil {
		return errors.New("a NULL pointer for the handle result")
	}
	*out = uintptr(cgo.NewHandle(v))
	return nil
}

// matrices returns a copy of the n d×d matrices at p, in Go memory, as a
// Set (validated: finite, symmetric, positive definite); name names them
// in errors, with the index of the first bad matrix.
func matrices(name string, p unsafe.Pointer, n, d int64) (*spd.Set, error) {
	values, err := size(name, n, d)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("%s: a NULL pointer for %d matrices", name, n)
	}
	data := make([]float64, values)
	copy(data, unsafe.Slice((*float64)(p), values))
	set, err := spd.NewSetFromData(int(d), data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return set, nil
}

// maxValues bounds the values of the arrays that cross the boundary, so
// that n·d·d cannot overflow.
const maxValues = 1 << 50

// size returns n·d·d for n >= 1 matrices of d >= 1, refusing more than
// maxValues.
func size(name string, n, d int64) (int, error) {
	switch {
	case n < 1:
		return 0, fmt.Errorf("%s: %d matrices: want at least one", name, n)
	case d < 1:
		return 0, fmt.Errorf("%s: matrices of %d×%d: want d >= 1", name, d, d)
	case d > maxValues/d || n > maxValues/(d*d):
		return 0, fmt.Errorf("%s: %d matrices of %d×%d are too many values", name, n, d, d)
	}
	return int(n * d * d), nil
}

// output returns the caller's buffer of n doubles at p, which the call
// fills just before it returns.
func output(p unsafe.Pointer, n int) ([]float64, error) {
	if p == nil {
		return nil, fmt.Errorf("a NULL pointer for the output of %d values", n)
	}
	return unsafe.Slice((*float64)(p), n), nil
}
