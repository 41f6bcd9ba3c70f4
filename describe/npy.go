package describe

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sbinet/npyio"
)

// npyMagic starts every .npy file; version 1.0 follows it, then the
// header length as a little-endian uint16.
const npyMagic = "\x93NUMPY"

// npyPrefix is the size of the magic, version and header length fields.
const npyPrefix = len(npyMagic) + 2 + 2

// npyGrowthDigits is the number of digits reserved for the first dimension
// n, so that the header of any n has the same length and can be rewritten
// in place once n is known. It is NumPy's GROWTH_AXIS_MAX_DIGITS (the
// digits of 8·2⁶⁴−1), which numpy.save also reserves.
const npyGrowthDigits = 21

// npyHeader returns the .npy format 1.0 header of a C-order little-endian
// float64 array of shape (n, d, d):
//
//	\x93NUMPY \x01 \x00 <uint16 LE length> {'descr': '<f8', 'fortran_order': False, 'shape': (n, d, d), } <spaces> \n
//
// padded with spaces so that its total size is a multiple of 64 (the data
// that follows is aligned) and independent of n < 10²¹.
func npyHeader(n, d int) []byte {
	dict := func(n string) []byte {
		b := []byte("{'descr': '<f8', 'fortran_order': False, 'shape': (")
		b = append(b, n...)
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(d), 10)
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(d), 10)
		return append(b, "), }"...)
	}
	longest := len(dict(strings.Repeat("9", npyGrowthDigits)))
	total := (npyPrefix + longest + 1 + 63) / 64 * 64
	h := make([]byte, 0, total)
	h = append(h, npyMagic...)
	h = append(h, 1, 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(total-npyPrefix))
	h = append(h, dict(strconv.Itoa(n))...)
	for len(h) < total-1 {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// npyInfo is what readNPYHeader learns of a descriptors file.
type npyInfo struct {
	n, d   int
	offset int64 // of the data: the header's size
}

// readNPYHeader reads the header of the descriptors file f with npyio and
// checks that it holds a C-order little-endian float64 array of shape
// (n, d, d) whose data fills the rest of the file exactly. f is left at an
// unspecified offset.
func readNPYHeader(f *os.File) (npyInfo, error) {
	var pre [npyPrefix]byte
	if _, err := io.ReadFull(f, pre[:]); err != nil {
		return npyInfo{}, fmt.Errorf("%w: %s: header: %v", ErrOutput, f.Name(), err)
	}
	if string(pre[:len(npyMagic)]) != npyMagic || pre[6] != 1 || pre[7] != 0 {
		return npyInfo{}, fmt.Errorf("%w: %s: not a .npy file of format version 1.0", ErrOutput, f.Name())
	}
	offset := int64(npyPrefix) + int64(binary.LittleEndian.Uint16(pre[8:]))
	hdr := make([]byte, offset)
	copy(hdr, pre[:])
	if _, err := io.ReadFull(f, hdr[npyPrefix:]); err != nil {
		return npyInfo{}, fmt.Errorf("%w: %s: header: %v", ErrOutput, f.Name(), err)
	}
	h, err := parseNPYHeader(hdr)
	if err != nil {
		return npyInfo{}, fmt.Errorf("%w: %s: %v", ErrOutput, f.Name(), err)
	}
	if h.Type != "<f8" || h.Fortran || len(h.Shape) != 3 || h.Shape[0] < 0 || h.Shape[1] < 1 || h.Shape[1] != h.Shape[2] {
		return npyInfo{}, fmt.Errorf("%w: %s: array of type %q, shape %v, Fortran order %v; want '<f8' of shape (n, d, d) in C order",
			ErrOutput, f.Name(), h.Type, h.Shape, h.Fortran)
	}
	info := npyInfo{n: h.Shape[0], d: h.Shape[1], offset: offset}
	st, err := f.Stat()
	if err != nil {
		return npyInfo{}, err
	}
	dd := int64(info.d) * int64(info.d) * 8
	if info.d > math.MaxInt32 || int64(info.n) > (math.MaxInt64-offset)/dd || st.Size() != offset+int64(info.n)*dd {
		return npyInfo{}, fmt.Errorf("%w: %s: %d bytes for shape (%d, %d, %d) after a %d-byte header (truncated or corrupt)",
			ErrOutput, f.Name(), st.Size(), info.n, info.d, info.d, offset)
	}
	return info, nil
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

// readNPY reads the descriptors file at path with npyio: its shape and its
// n·d·d values in C order. When check is not nil, it is given the digest
// of the whole file once it is read, and its error returned.
func readNPY(path string, check func(*digest) error) (npyInfo, []float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return npyInfo{}, nil, fmt.Errorf("%w: %v", ErrOutput, err)
	}
	defer f.Close()
	info, err := readNPYHeader(f)
	if err != nil {
		return npyInfo{}, nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return npyInfo{}, nil, err
	}
	// npyio reads 8 bytes at a time and ignores short reads; fullReader
	// makes every read complete (the size was checked above).
	d := newDigest()
	br := bufio.NewReaderSize(io.TeeReader(f, d), 1<<16)
	r, err := npyio.NewReader(fullReader{br})
	if err != nil {
		return npyInfo{}, nil, fmt.Errorf("%w: %s: %v", ErrOutput, path, err)
	}
	data := make([]float64, info.n*info.d*info.d)
	if len(data) > 0 {
		if err := r.Read(&data); err != nil {
			return npyInfo{}, nil, fmt.Errorf("%w: %s: %v", ErrOutput, path, err)
		}
	}
	if check != nil {
		if _, err := io.Copy(io.Discard, br); err != nil {
			return npyInfo{}, nil, err
		}
		if err := check(d); err != nil {
			return npyInfo{}, nil, err
		}
	}
	return info, data, nil
}

// fullReader reads len(p) bytes on every call, short only at the end.
type fullReader struct{ r io.Reader }

func (f fullReader) Read(p []byte) (int, error) { return io.ReadFull(f.r, p) }
