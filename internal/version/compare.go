package version

import (
	"fmt"
	"strconv"
	"strings"
)

// Newer reports whether the version v, as String writes it ("0.1.0" or
// "0.1.0 (rev abc1234)"), is of a later release than this covpipe's
// Number. It returns an error for a v that does not start with a
// release number MAJOR.MINOR.PATCH.
func Newer(v string) (bool, error) {
	theirs, err := release(v)
	if err != nil {
		return false, err
	}
	ours, err := release(Number)
	if err != nil {
		return false, err
	}
	for i := range ours {
		if theirs[i] != ours[i] {
			return theirs[i] > ours[i], nil
		}
	}
	return false, nil
}

// release parses the release number that starts v.
func release(v string) ([3]int, error) {
	var r [3]int
	num, _, _ := strings.Cut(v, " ")
	parts := strings.Split(num, ".")
	if len(parts) != 3 {
		return r, fmt.Errorf("version %q does not start with MAJOR.MINOR.PATCH", v)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p != strconv.Itoa(n) {
			return r, fmt.Errorf("version %q does not start with MAJOR.MINOR.PATCH", v)
		}
		r[i] = n
	}
	return r, nil
}
