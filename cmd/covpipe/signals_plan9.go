package main

import "os"

// stopSignals are the signals that cancel a command: Plan 9 has no
// SIGTERM, only the interrupt note.
var stopSignals = []os.Signal{os.Interrupt}
