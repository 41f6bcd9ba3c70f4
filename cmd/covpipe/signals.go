//go:build !plan9

package main

import (
	"os"
	"syscall"
)

// stopSignals are the signals that cancel a command: SIGINT (Ctrl-C) and
// SIGTERM.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}
