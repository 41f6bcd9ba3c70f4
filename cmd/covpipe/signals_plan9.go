package main

import "os"

// stopSignals are the signals that cancel a command: Plan 9 has no
// SIGTERM, only the interrupt note.
var stopSignals = []os.Signal{os.Interrupt}

// exitStatus is the exit status of covpipe stopped by sig: 130, as for
// SIGINT elsewhere.
func exitStatus(os.Signal) int { return 130 }

// signalName is the name of a stop signal.
func signalName(sig os.Signal) string { return sig.String() }
