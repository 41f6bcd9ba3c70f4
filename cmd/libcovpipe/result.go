package main

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"slices"
	"unsafe"
)

// result is what a call returns whose size the caller cannot know before
// it: named float64 arrays and a JSON text, held by a handle until the
// caller has copied them out.
type result struct {
	arrays map[string]array
	text   string
}

// array is a row-major float64 array and its shape.
type array struct {
	shape []int
	data  []float64
}

// maxDims bounds the dimensions of a result's arrays, the size of the
// caller's shape buffer of covpipe_result_shape.
const maxDims = 4

// arrayOf returns the array name of the result h.
func arrayOf(h uintptr, name *C.char) (array, error) {
	r, err := handleOf[*result](h, "result")
	if err != nil {
		return array{}, err
	}
	n := goString(name)
	a, ok := r.arrays[n]
	if !ok {
		var names []string
		for k := range r.arrays {
			names = append(names, k)
		}
		slices.Sort(names)
		return array{}, fmt.Errorf("result: no array %q (arrays: %v)", n, names)
	}
	return a, nil
}

// covpipe_result_shape writes the shape of the array name of the result h
// into shape (room for 4 dimensions) and its number of dimensions into
// ndim.
//
//export covpipe_result_shape
func covpipe_result_shape(h uintptr, name *C.char, shape *int64, ndim *int64) *C.char {
	return call(func() error {
		a, err := arrayOf(h, name)
		if err != nil {
			return err
		}
		if shape == nil || ndim == nil {
			return fmt.Errorf("result_shape: a NULL pointer")
		}
		dims := unsafe.Slice(shape, maxDims)
		for i, s := range a.shape {
			dims[i] = int64(s)
		}
		*ndim = int64(len(a.shape))
		return nil
	})
}

// covpipe_result_copy copies the array name of the result h into out, a
// buffer of n doubles, which must be the array's size.
//
//export covpipe_result_copy
func covpipe_result_copy(h uintptr, name *C.char, out unsafe.Pointer, n int64) *C.char {
	return call(func() error {
		a, err := arrayOf(h, name)
		if err != nil {
			return err
		}
		if n != int64(len(a.data)) {
			return fmt.Errorf("result_copy: array %q has %d values, the buffer %d", goString(name), len(a.data), n)
		}
		if n == 0 {
			return nil
		}
		dst, err := output(out, len(a.data))
		if err != nil {
			return err
		}
		copy(dst, a.data)
		return nil
	})
}

// covpipe_result_text sets *out to the JSON text of the result h, which
// the caller frees (covpipe_free).
//
//export covpipe_result_text
func covpipe_result_text(h uintptr, out **C.char) *C.char {
	return call(func() error {
		r, err := handleOf[*result](h, "result")
		if err != nil {
			return err
		}
		return setText(out, r.text)
	})
}
