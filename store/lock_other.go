//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package store

import "os"

// flock has no advisory lock to take on this system (Windows, Plan 9,
// Solaris, WebAssembly): it always succeeds, so that two writers into one
// folder are not kept apart. The journal still keeps a single writer's
// folder whole.
func flock(*os.File) (bool, error) { return true, nil }

// lockEnforced says whether flock excludes a second writer.
const lockEnforced = false
