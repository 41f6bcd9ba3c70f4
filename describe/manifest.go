package describe

import (
	"fmt"
	"strconv"
	"strings"

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

// appendPath appends the manifest path of the item with relative path rel
// of input k of inputs: rel itself for a single input, else "k:rel".
func appendPath(b []byte, k, inputs int, rel string) []byte {
	if inputs > 1 {
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ':')
	}
	return append(b, rel...)
}

// splitPath reverses appendPath: it returns the input index and the
// relative path of a manifest path.
func splitPath(p string, inputs int) (int, string, error) {
	if inputs <= 1 {
		return 0, p, nil
	}
	ks, rel, ok := strings.Cut(p, ":")
	k, err := strconv.Atoi(ks)
	if !ok || err != nil || k < 0 || k >= inputs || ks != strconv.Itoa(k) {
		return 0, "", fmt.Errorf("path %q does not start with an input number 0..%d and a colon", p, inputs-1)
	}
	return k, rel, nil
}

// oneLine replaces the line breaks of an error message by spaces, so that
// failures.csv has one line per row.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
}
