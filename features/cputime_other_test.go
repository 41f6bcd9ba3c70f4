//go:build !unix

package features_test

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
