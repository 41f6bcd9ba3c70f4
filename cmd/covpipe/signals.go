//go:build !plan9

package main

import (
	"os"
	"syscall"
)

// stopSignals are the signals that cancel a command: SIGINT (Ctrl-C) and
// SIGTERM.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// exitStatus is the exit status of covpipe stopped by sig: 128 + its
// number, as a shell reports a process killed by it (130 for SIGINT, 143
// for SIGTERM).
func exitStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// signalName is the conventional name of a stop signal.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
