//go:build !unix

package gabor_test

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
