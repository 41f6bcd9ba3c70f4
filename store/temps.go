package store

import (
	"errors"
	"sync"
)

// live is the process-wide registry of the Folders being written: the one
// piece of global state of covpipe's packages, so that a process told to
// stop at once (a second Ctrl-C) can remove its temporary files without
// waiting for its writers (RemoveTempFiles). Its mutex also orders a
// Folder's state changes against RemoveTempFiles.
var live = struct {
	sync.Mutex
	folders map[*Folder]struct{}
	closed  bool // RemoveTempFiles was called: the process is exiting
}{folders: map[*Folder]struct{}{}}

// errExiting is the error of a Folder used after RemoveTempFiles.
var errExiting = errors.New("store: the process is exiting")

// RemoveTempFiles removes the temporary files of every Folder of the
// process that has not reached its commit point, and the folders that
// CreateFolder created and are left empty, and releases their locks: for
// a process about to exit at once, on a second interrupt. A Folder past
// its commit point is left to the journal, which the next covpipe to
// open the folder completes. From then on no Folder of the process
// creates a file or commits: RemoveTempFiles is for a process that
// exits right after it.
func RemoveTempFiles() {
	folders := withLive(func() []*Folder {
		live.closed = true
		var folders []*Folder
		for f := range live.folders {
			if f.removeTemps() {
				folders = append(folders, f)
			}
		}
		return folders
	})
	for _, f := range folders {
		f.release()
	}
}

// withLive returns fn's result, called with live's mutex held: released
// by a defer, so that a panic that a caller recovers from leaves it free.
func withLive[T any](fn func() T) T {
	live.Lock()
	defer live.Unlock()
	return fn()
}

// setState sets f's state under live's mutex.
func setState(f *Folder, s folderState) {
	withLive(func() bool { f.state = s; return true })
}
