// Package version holds covpipe's version, recorded in every output's
// metadata so that results can be traced to the code that made them.
package version

import "runtime/debug"

// Number is the release number of covpipe.
const Number = "0.1.0"

// String returns the release number followed by the VCS revision when the
// binary was built from a checkout with VCS stamping, e.g.
// "0.1.0 (rev 58dbab8, modified)".
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Number
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 7 {
				rev = rev[:7]
			}
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return Number
	}
	return Number + " (rev " + rev + modified + ")"
}
