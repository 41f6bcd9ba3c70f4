package store

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/covpipe/covpipe/covariance"
)

// Header rows of the CSV files.
const (
	manifestHeader = "index,path,label,region\n"
	failuresHeader = "path,error\n"
)

// appendField appends s to b as one CSV field (RFC 4180, as encoding/csv
// reads it): quoted, with quotes doubled, when it holds a comma, a quote,
// a line break, or leading or trailing white space.
func appendField[S ~string | ~[]byte](b []byte, s S) []byte {
	quote := len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t')
	for i := 0; i < len(s) && !quote; i++ {
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n'
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := range len(s) {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// AppendField appends s to b as one field of a CSV file of covpipe's
// (manifest.csv, failures.csv, covpipe predict's predictions.csv):
// escaped so that the file stays valid UTF-8 whatever the name (a
// backslash written \\ and each byte that is not part of valid UTF-8
// \xNN, as the package documentation says), then quoted as RFC 4180
// needs.
func AppendField(b []byte, s string) []byte { return appendField(b, appendEscaped(nil, s)) }

// AppendPathField appends, as AppendField does, the manifest path of the
// item with relative path rel of input number input of inputs: rel itself
// for a single input, else "input:rel".
func AppendPathField(b []byte, input, inputs int, rel string) []byte {
	return appendField(b, AppendPath(nil, input, inputs, rel))
}

// appendRegion appends the string form of r, r.String() ("WxH+X+Y"),
// without allocating.
func appendRegion(b []byte, r covariance.Region) []byte {
	b = strconv.AppendInt(b, int64(r.W), 10)
	b = append(b, 'x')
	b = strconv.AppendInt(b, int64(r.H), 10)
	b = append(b, '+')
	b = strconv.AppendInt(b, int64(r.X), 10)
	b = append(b, '+')
	return strconv.AppendInt(b, int64(r.Y), 10)
}

// AppendPath appends the manifest path of the item with relative path rel
// of input k of inputs: rel itself (escaped: appendEscaped) for a single
// input, else "k:rel".
func AppendPath(b []byte, k, inputs int, rel string) []byte {
	if inputs > 1 {
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ':')
	}
	return appendEscaped(b, rel)
}

// splitPath reverses AppendPath: it returns the input index and the
// relative path, unescaped, of a manifest path.
func splitPath(p string, inputs int) (int, string, error) {
	if inputs <= 1 {
		rel, err := unescape(p)
		return 0, rel, err
	}
	ks, rel, ok := strings.Cut(p, ":")
	k, err := strconv.Atoi(ks)
	if !ok || err != nil || k < 0 || k >= inputs || ks != strconv.Itoa(k) {
		return 0, "", fmt.Errorf("path %q does not start with an input number 0..%d and a colon", p, inputs-1)
	}
	rel, err = unescape(rel)
	return k, rel, err
}

// oneLine replaces the line breaks of an error message by spaces, so that
// failures.csv has one line per row.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
}

// appendEscaped appends s with every backslash doubled and every byte
// that is not part of valid UTF-8 written as \xNN (two lower-case hex
// digits), so that manifest.csv and failures.csv are valid UTF-8 whatever
// the file names; unescape reverses it.
func appendEscaped(b []byte, s string) []byte {
	if utf8.ValidString(s) && !strings.Contains(s, `\`) {
		return append(b, s...)
	}
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, '\\', 'x', hex[s[i]>>4], hex[s[i]&15])
		case r == '\\':
			b = append(b, '\\', '\\')
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// unescape reverses appendEscaped. It returns an error for a backslash
// that does not start \\ or \xNN with lower-case hex digits.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b = append(b, s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			b = append(b, '\\')
			i++
		case i+3 < len(s) && s[i+1] == 'x' && isLowerHex(s[i+2]) && isLowerHex(s[i+3]):
			v, _ := strconv.ParseUint(s[i+2:i+4], 16, 8)
			b = append(b, byte(v))
			i += 3
		default:
			return "", fmt.Errorf("%q: malformed escape at byte %d (want \\\\ or \\xNN)", s, i)
		}
	}
	return string(b), nil
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

// readCSV streams the records after the header row of the CSV file name
// of the folder r.dir, whose first row must be header (with its newline),
// to fn; the record's slice is reused between calls. Once the file is
// read, it checks it against its record in r. Errors, including fn's,
// name the file and line and wrap ErrInvalid.
func readCSV(r records, name, header string, fn func(rec []string) error) error {
	path := r.path(name)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		return err
	}
	defer f.Close()
	d := newDigest()
	cr := csv.NewReader(bufio.NewReaderSize(io.TeeReader(f, d), 1<<16))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = strings.Count(header, ",") + 1
	want := strings.TrimSuffix(header, "\n")
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			if line == 1 {
				return fmt.Errorf("%w: %s: empty file (want the header %s)", ErrInvalid, path, want)
			}
			return r.check(name, d)
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
		}
		if line == 1 {
			if got := strings.Join(rec, ","); got != want {
				return fmt.Errorf("%w: %s line 1: header %q, want %q", ErrInvalid, path, got, want)
			}
			continue
		}
		if err := fn(rec); err != nil {
			l, _ := cr.FieldPos(0)
			return fmt.Errorf("%w: %s line %d: %v", ErrInvalid, path, l, err)
		}
	}
}
