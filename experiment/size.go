package experiment

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/imageio"
)

// ParseSize parses "WxH" (columns × rows), both >= 1.
func ParseSize(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(ws)
		if err == nil {
			h, err = strconv.Atoi(hs)
		}
	}
	if !ok || err != nil || w < 1 || h < 1 {
		return 0, 0, fmt.Errorf("size %q: want WxH with positive integers, e.g. 64x64", s)
	}
	return w, h, nil
}

// parseFilter maps a config's filter name to imageio's.
func parseFilter(s string) (imageio.Filter, error) {
	switch strings.ToLower(s) {
	case "", "linear":
		return imageio.Linear, nil
	case "nearest":
		return imageio.Nearest, nil
	case "box":
		return imageio.Box, nil
	case "catmullrom":
		return imageio.CatmullRom, nil
	case "lanczos3":
		return imageio.Lanczos3, nil
	}
	return 0, fmt.Errorf("filter %q: want linear, nearest, box, catmullrom or lanczos3", s)
}
