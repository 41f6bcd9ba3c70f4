package datasets

import (
	"fmt"
	"regexp"
	"strconv"
)

// A MetaParser extracts metadata from a file's base name (such as
// "0003C4T0003F001.jpg"). It returns ok false when the name does not
// follow its scheme, and the item then has no metadata.
type MetaParser func(name string) (meta map[string]string, ok bool)

// RegexpMeta returns a MetaParser that matches the whole base name against
// re and returns its named subexpressions as metadata, keyed by their
// names; unnamed groups and groups that did not take part are left out.
// Anchor re (^...$) to match whole names.
func RegexpMeta(re *regexp.Regexp) MetaParser {
	names := re.SubexpNames()
	return func(name string) (map[string]string, bool) {
		m := re.FindStringSubmatchIndex(name)
		if m == nil {
			return nil, false
		}
		meta := make(map[string]string)
		for i, key := range names {
			if key != "" && m[2*i] >= 0 {
				meta[key] = name[m[2*i]:m[2*i+1]]
			}
		}
		return meta, true
	}
}

// marsName is the MARS file name scheme <pid>C<cam>T<tracklet>F<frame>.ext
// (Zheng et al., "MARS: A Video Benchmark for Large-Scale Person
// Re-identification", ECCV 2016); its distractor identity is "00-1".
var marsName = regexp.MustCompile(`^(?P<pid>[0-9]+|00-1)C(?P<camera>[0-9]+)T(?P<tracklet>[0-9]+)F(?P<frame>[0-9]+)\.[A-Za-z]+$`)

// MARSMeta is a MetaParser for MARS re-identification crops named
// <pid>C<cam>T<tracklet>F<frame>.jpg, such as "0003C4T0003F001.jpg": it
// gives the keys "pid", "camera", "tracklet" and "frame" with their digits
// as written ({"pid": "0003", "camera": "4", "tracklet": "0003",
// "frame": "001"}). Tracklet numbers are per identity and camera, so a
// tracklet is identified by (pid, camera, tracklet).
func MARSMeta(name string) (map[string]string, bool) {
	return RegexpMeta(marsName)(name)
}

// feretName is the FERET file name scheme SSSSSxx.ext.
var feretName = regexp.MustCompile(`^([0-9]{5})([a-z]{2})\.[A-Za-z]+$`)

// ParseFERETName parses a FERET file name SSSSSxx.ext (Phillips et al.,
// "The FERET evaluation methodology for face-recognition algorithms",
// PAMI 2000): a 5-digit subject id and a 2-letter lower-case pose code,
// such as "00001ba.png" → ("00001", "ba"). The 'b' subset of the paper
// (Sec. 5.1, "Face Recognition") has the codes ba (frontal), bj
// (alternative expression), bk (different illumination), bd (+25°), be
// (+15°), bf (−15°), bg (−25°); other codes (fa, fb, ql, hr, ...) are
// accepted as long as they are two lower-case letters. It returns an error
// wrapping ErrFormat for any other name.
func ParseFERETName(name string) (subject, pose string, err error) {
	m := feretName.FindStringSubmatch(name)
	if m == nil {
		return "", "", fmt.Errorf("%w: FERET file name %q: want SSSSSxx.ext, a 5-digit subject id and a 2-letter lower-case pose code such as 00001ba.png", ErrFormat, name)
	}
	return m[1], m[2], nil
}

// brodatzName is the Brodatz file name scheme D<n>.ext.
var brodatzName = regexp.MustCompile(`^D([1-9][0-9]{0,5})\.[A-Za-z]+$`)

// ParseBrodatzName parses a Brodatz album file name D<n>.ext, n a positive
// integer without leading zeros (P. Brodatz, "Textures: A Photographic
// Album for Artists and Designers", 1966; plate numbers 1..112), such as
// "D12.gif" → ("D12", 12). The label is the name without extension, "D<n>".
// It returns an error wrapping ErrFormat for any other name.
func ParseBrodatzName(name string) (label string, n int, err error) {
	m := brodatzName.FindStringSubmatch(name)
	if m == nil {
		return "", 0, fmt.Errorf("%w: Brodatz file name %q: want D<n>.ext with a positive plate number n, such as D12.gif", ErrFormat, name)
	}
	n, err = strconv.Atoi(m[1])
	if err != nil {
		return "", 0, fmt.Errorf("%w: Brodatz file name %q: %v", ErrFormat, name, err)
	}
	return "D" + m[1], n, nil
}
