package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sbinet/npyio"

	"github.com/covpipe/covpipe/internal/atomicfile"
)

// npyMagic starts every .npy file; version 1.0 follows it, then the
// header length as a little-endian uint16.
const npyMagic = "\x93NUMPY"

// npyPrefix is the size of the magic, version and header length fields.
const npyPrefix = len(npyMagic) + 2 + 2

// npyGrowthDigits is the number of digits reserved for the first dimension
// n of a streamed array, so that the header of any n has the same length
// and can be rewritten in place once n is known. It is NumPy's
// GROWTH_AXIS_MAX_DIGITS (the digits of 8·2⁶⁴−1), which numpy.save also
// reserves.
const npyGrowthDigits = 21

// npyDict returns the header dictionary of a C-order little-endian
// float64 array whose shape has the given entries (decimal numbers):
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (3, 17, 17), }
//
// with a trailing comma in the shape of one dimension, "(4,)", as Python
// writes a tuple.
func npyDict(shape ...string) []byte {
	b := []byte("{'descr': '<f8', 'fortran_order': False, 'shape': (")
	b = append(b, strings.Join(shape, ", ")...)
	if len(shape) == 1 {
		b = append(b, ',')
	}
	return append(b, "), }"...)
}

// npyHeaderOf returns the .npy format 1.0 header of total bytes holding
// dict: the magic, version 1.0, the length of the rest as a little-endian
// uint16, dict, then spaces and a final '\n'.
func npyHeaderOf(dict []byte, total int) []byte {
	h := make([]byte, 0, total)
	h = append(h, npyMagic...)
	h = append(h, 1, 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(total-npyPrefix))
	h = append(h, dict...)
	for len(h) < total-1 {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// npyAligned returns the size of a header holding a dictionary of n
// bytes: the smallest multiple of 64, so that the data that follows is
// aligned.
func npyAligned(n int) int { return (npyPrefix + n + 1 + 63) / 64 * 64 }

// npyHeader returns the header of a streamed array of shape (n, dims...):
//
//	\x93NUMPY \x01 \x00 <uint16 LE length> {'descr': '<f8', 'fortran_order': False, 'shape': (n, d, d), } <spaces> \n
//
// padded with spaces so that its total size is a multiple of 64 and
// independent of n < 10²¹.
func npyHeader(n int, dims ...int) []byte {
	shape := make([]string, 1+len(dims))
	shape[0] = strings.Repeat("9", npyGrowthDigits)
	for i, d := range dims {
		shape[1+i] = strconv.Itoa(d)
	}
	total := npyAligned(len(npyDict(shape...)))
	shape[0] = strconv.Itoa(n)
	return npyHeaderOf(npyDict(shape...), total)
}

// WriteNPY writes data as a little-endian float64 .npy array (format 1.0,
// C order) of the given shape, atomically: the file appears complete or
// not at all. Its header is as short as numpy.save writes it for that
// shape. It returns an error for a negative dimension and when len(data)
// is not the product of shape.
func WriteNPY(path string, shape []int, data []float64) error {
	b, err := encodeNPY(shape, data)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, b)
}

// NPYWriter streams a little-endian float64 .npy array (format 1.0, C
// order) of shape (n, dims...) to a file, n growing with every Append:
// the header is written first with room for any n below 10²¹ (as
// numpy.save leaves it) and rewritten in place by Close, so the array is
// never held in memory.
type NPYWriter struct {
	w      NPYFile
	dims   []int
	item   int // values per entry of the first axis
	n      int
	buf    []byte
	closed bool
}

// NPYFile is what an NPYWriter streams to: appended to, and written at
// offset 0 for the final header; a Pending file of a Folder, an *os.File.
type NPYFile interface {
	io.Writer
	io.WriterAt
}

// NewNPYWriter starts an array of shape (n, dims...) at the start of w.
// It returns an error for a nil w, a negative dimension or an entry of
// more bytes than an int holds, and the error of writing the header.
func NewNPYWriter(w NPYFile, dims ...int) (*NPYWriter, error) {
	if w == nil {
		return nil, errors.New("store: .npy array to a nil file")
	}
	item, err := npyCount(dims)
	if err != nil {
		return nil, fmt.Errorf("store: .npy array of shape (n, %v): %w", dims, err)
	}
	a := &NPYWriter{w: w, dims: slices.Clone(dims), item: item}
	if _, err := w.Write(npyHeader(0, dims...)); err != nil {
		return nil, err
	}
	return a, nil
}

// Len returns n, the number of entries appended so far (0 for a nil
// NPYWriter).
func (a *NPYWriter) Len() int {
	if a == nil {
		return 0
	}
	return a.n
}

// usable returns an error for a nil NPYWriter, one not made by
// NewNPYWriter, and one closed.
func (a *NPYWriter) usable() error {
	switch {
	case a == nil || a.w == nil:
		return errors.New("store: a nil or zero NPYWriter (not made by NewNPYWriter)")
	case a.closed:
		return errors.New("store: NPYWriter used after Close")
	}
	return nil
}

// Append appends entries of the first axis, given as their values in C
// order one after another. It returns an error when len(values) is not a
// multiple of an entry's size, after Close, and errors of writing.
func (a *NPYWriter) Append(values []float64) error {
	if err := a.usable(); err != nil {
		return err
	}
	if len(values) == 0 {
		return nil
	}
	if a.item == 0 || len(values)%a.item != 0 {
		return fmt.Errorf("store: %d values for entries of shape %v", len(values), a.dims)
	}
	a.buf = a.buf[:0]
	for _, v := range values {
		a.buf = binary.LittleEndian.AppendUint64(a.buf, math.Float64bits(v))
	}
	if _, err := a.w.Write(a.buf); err != nil {
		return err
	}
	a.n += len(values) / a.item
	return nil
}

// Copy appends n entries read from r, already encoded as the array's
// values (little-endian float64, C order). It returns an error wrapping
// ErrInvalid when r ends first, an error for a nil r, a negative n or
// one of more bytes than an int64 holds and after Close, and errors of
// reading and writing.
func (a *NPYWriter) Copy(r io.Reader, n int) error {
	if err := a.usable(); err != nil {
		return err
	}
	switch {
	case r == nil:
		return errors.New("store: NPYWriter.Copy from a nil reader")
	case n < 0 || a.item > 0 && int64(n) > math.MaxInt64/8/int64(a.item):
		return fmt.Errorf("store: NPYWriter.Copy of %d entries of %d values", n, a.item)
	}
	size := int64(n) * int64(a.item) * 8
	if m, err := io.CopyN(a.w, r, size); err != nil {
		if m < size && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
			return fmt.Errorf("%w: %d of %d bytes of array entries", ErrInvalid, m, size)
		}
		return err
	}
	a.n += n
	return nil
}

// Close rewrites the header with the final n. It does not close the
// underlying file. After Close, Append, Copy and Close return errors.
func (a *NPYWriter) Close() error {
	if err := a.usable(); err != nil {
		return err
	}
	a.closed = true
	_, err := a.w.WriteAt(npyHeader(a.n, a.dims...), 0)
	return err
}

// npyShape is the shape of the arrays that a reader takes.
type npyShape struct {
	name string // "of shape (n, d, d)"
	ok   func(shape []int) bool
}

var (
	// anyShape is any array of one or more dimensions.
	anyShape = npyShape{"of one or more dimensions", func(s []int) bool { return len(s) >= 1 }}
	// matrixShape is a stack of n d×d matrices, d ≥ 1.
	matrixShape = npyShape{"of shape (n, d, d)", func(s []int) bool { return len(s) == 3 && s[1] >= 1 && s[1] == s[2] }}
	// rowShape is n rows of len values, len ≥ 1 unless there are none.
	rowShape = npyShape{"of shape (n, len)", func(s []int) bool { return len(s) == 2 && (s[1] >= 1 || s[0] == 0) }}
)

// npyInfo is what readNPYHeader learns of a .npy file.
type npyInfo struct {
	shape  []int
	offset int64 // of the data: the header's size
}

// readNPYHeader reads the header of the .npy file f with npyio and checks
// that it holds a C-order little-endian float64 array of the shape want
// whose data fills the rest of the file exactly. f is left at an
// unspecified offset. The errors name the file and wrap ErrInvalid.
func readNPYHeader(f *os.File, want npyShape) (npyInfo, error) {
	var pre [npyPrefix]byte
	if _, err := io.ReadFull(f, pre[:]); err != nil {
		return npyInfo{}, fmt.Errorf("%w: %s: header: %v", ErrInvalid, f.Name(), err)
	}
	if string(pre[:len(npyMagic)]) != npyMagic || pre[6] != 1 || pre[7] != 0 {
		return npyInfo{}, fmt.Errorf("%w: %s: not a .npy file of format version 1.0", ErrInvalid, f.Name())
	}
	offset := int64(npyPrefix) + int64(binary.LittleEndian.Uint16(pre[8:]))
	hdr := make([]byte, offset)
	copy(hdr, pre[:])
	if _, err := io.ReadFull(f, hdr[npyPrefix:]); err != nil {
		return npyInfo{}, fmt.Errorf("%w: %s: header: %v", ErrInvalid, f.Name(), err)
	}
	h, err := parseNPYHeader(hdr)
	if err != nil {
		return npyInfo{}, fmt.Errorf("%w: %s: %v", ErrInvalid, f.Name(), err)
	}
	nonNegative := true
	for _, s := range h.Shape {
		nonNegative = nonNegative && s >= 0
	}
	if h.Type != "<f8" || h.Fortran || !nonNegative || !want.ok(h.Shape) {
		return npyInfo{}, fmt.Errorf("%w: %s: array of type %q, shape %v, Fortran order %v; want '<f8' %s in C order",
			ErrInvalid, f.Name(), h.Type, h.Shape, h.Fortran, want.name)
	}
	st, err := f.Stat()
	if err != nil {
		return npyInfo{}, err
	}
	// The number of values, unless it overflows the file sizes there are.
	count, fits := int64(1), true
	for _, s := range h.Shape {
		if s == 0 {
			count, fits = 0, true
			break
		}
		fits = fits && count <= (math.MaxInt64-offset)/8/int64(s)
		count *= int64(s)
	}
	if !fits || st.Size() != offset+8*count {
		return npyInfo{}, fmt.Errorf("%w: %s: %d bytes for shape %v after a %d-byte header (truncated or corrupt)",
			ErrInvalid, f.Name(), st.Size(), npyShapeString(h.Shape), offset)
	}
	return npyInfo{shape: h.Shape, offset: offset}, nil
}

// npyShapeString returns shape as NumPy prints it: "(3, 2, 2)", "(4,)".
func npyShapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.Itoa(d)
	}
	if len(s) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// parseNPYHeader parses a whole .npy header (magic to '\n') with npyio,
// turning the panics of its parser on malformed headers into errors.
func parseNPYHeader(hdr []byte) (desc npyDescr, err error) {
	if len(hdr) == 0 || hdr[len(hdr)-1] != '\n' {
		return desc, errors.New("the header does not end with a newline")
	}
	defer func() {
		if recover() != nil {
			err = fmt.Errorf("malformed header %q", hdr[npyPrefix:])
		}
	}()
	r, err := npyio.NewReader(bytes.NewReader(hdr))
	if err != nil {
		return desc, err
	}
	return r.Header.Descr, nil
}

// npyDescr is the array description of a .npy header.
type npyDescr = struct {
	Type    string
	Fortran bool
	Shape   []int
}

// ReadNPY reads the .npy file at path (format 1.0, as numpy.save and
// WriteNPY write it) holding a little-endian float64 array of one or more
// dimensions in C order: its shape and its values in C order. It returns
// an error naming the file, wrapping ErrInvalid, for a file that is not
// such an array (another dtype, Fortran order, a malformed header) or
// whose size does not match its shape.
func ReadNPY(path string) (shape []int, data []float64, err error) {
	info, data, err := readNPY(path, anyShape, nil)
	return info.shape, data, err
}

// readNPY reads the .npy file at path, an array of the shape want, its
// header parsed with npyio: its shape and values in C order. When check
// is not nil, it is given the digest of the whole file once it is read,
// and its error returned. The values are decoded a chunk of
// npyReadChunk bytes at a time, straight into the array, so that reading
// holds the array and one chunk.
func readNPY(path string, want npyShape, check func(*digest) error) (npyInfo, []float64, error) {
	var data []float64
	info, err := readNPYEach(path, want, check, func(info npyInfo) ([]float64, error) {
		n, _ := npyCount(info.shape) // readNPYHeader checked the shape
		data = make([]float64, n)
		return data, nil
	}, func([]float64) error { return nil })
	if err != nil {
		return npyInfo{}, nil, err
	}
	return info, data, nil
}

// readNPYEach reads the .npy file at path as readNPY does, but into the
// buffer that start returns for the array's header, a whole number of
// which the array's values must fill: each is called with the buffer
// every time it is full, values in C order, and may modify it. The
// values are decoded a chunk of npyReadChunk bytes at a time, whatever
// the buffer's length, so that reading holds the buffer and one chunk.
// check sees the digest only after the last values are given to each, so
// that each may have seen values of a file that check then rejects. An
// error of start, each or check ends the read and is returned as it is.
func readNPYEach(path string, want npyShape, check func(*digest) error, start func(npyInfo) ([]float64, error), each func([]float64) error) (npyInfo, error) {
	info, f, err := openNPYEach(path, want, check, start, each)
	if f != nil {
		f.Close()
	}
	return info, err
}

// openNPYEach is readNPYEach, but returns the file, open, when it reads
// it whole.
func openNPYEach(path string, want npyShape, check func(*digest) error, start func(npyInfo) ([]float64, error), each func([]float64) error) (_ npyInfo, _ *os.File, err error) {
	f, err := os.Open(path)
	if err != nil {
		return npyInfo{}, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	info, err := readNPYHeader(f, want)
	if err != nil {
		return npyInfo{}, nil, err
	}
	// readNPYHeader checked that the file is the header and n values.
	n, _ := npyCount(info.shape)
	d := newDigest()
	if check != nil {
		if _, err := io.Copy(d, io.NewSectionReader(f, 0, info.offset)); err != nil {
			return npyInfo{}, nil, err
		}
	}
	unit, err := start(info)
	if err != nil {
		return npyInfo{}, nil, err
	}
	if n > 0 && (len(unit) == 0 || n%len(unit) != 0) {
		return npyInfo{}, nil, fmt.Errorf("store: %s: %d values are not a whole number of %d", path, n, len(unit))
	}
	buf := make([]byte, min(npyReadChunk, 8*n))
	at := 0 // values of unit filled
	for done := 0; done < n; {
		b := buf[:8*min(len(buf)/8, n-done)]
		if _, err := io.ReadFull(f, b); err != nil {
			return npyInfo{}, nil, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
		}
		if check != nil {
			d.Write(b)
		}
		done += len(b) / 8
		for len(b) > 0 {
			u := unit[at:min(len(unit), at+len(b)/8)]
			for k := range u {
				u[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:]))
			}
			b, at = b[8*len(u):], at+len(u)
			if at == len(unit) {
				if err := each(unit); err != nil {
					return npyInfo{}, nil, err
				}
				at = 0
			}
		}
	}
	if check != nil {
		if err := check(d); err != nil {
			return npyInfo{}, nil, err
		}
	}
	return info, f, nil
}

// npyReadChunk is the size of the chunks in which readNPY reads values,
// a multiple of 8 (a variable so that tests can cut values' buffers at
// odd places).
var npyReadChunk = 1 << 20
