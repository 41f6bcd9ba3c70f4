// Package plural counts things in messages: "1 image", "3 images",
// "2 classes", so that no message says "1 images".
package plural

import (
	"strconv"
	"strings"
)

// irregular are the plurals of the nouns of covpipe's messages that the
// rules of Noun do not make.
var irregular = map[string]string{"matrix": "matrices", "index": "indices"}

// Of returns n followed by thing, singular for n = 1 and plural
// otherwise (Noun): Of(1, "image") is "1 image", Of(0, "class") "0
// classes", Of(2, "cross-validation fold") "2 cross-validation folds".
func Of(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + Noun(thing)
}

// Noun returns the plural of thing, a noun or a phrase ending in one,
// whose last word it makes plural: -es after s, x, z, ch and sh
// ("classes"), -ies for a consonant and y ("entries"), the plurals of
// irregular ("matrices"), -s otherwise.
func Noun(thing string) string {
	head, last := "", thing
	if i := strings.LastIndexByte(thing, ' '); i >= 0 {
		head, last = thing[:i+1], thing[i+1:]
	}
	if p, ok := irregular[last]; ok {
		return head + p
	}
	switch {
	case last == "":
		return thing
	case strings.HasSuffix(last, "s"), strings.HasSuffix(last, "x"), strings.HasSuffix(last, "z"),
		strings.HasSuffix(last, "ch"), strings.HasSuffix(last, "sh"):
		return thing + "es"
	case len(last) > 1 && last[len(last)-1] == 'y' && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
		return head + last[:len(last)-1] + "ies"
	}
	return thing + "s"
}
