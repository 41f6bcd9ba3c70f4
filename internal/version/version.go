// Package version holds covpipe's version, recorded in every output's
// metadata so that results can be traced to the code that made them.
package version

import (
	"runtime"
	"runtime/debug"
)

// Number is the release number of covpipe.
const Number = "0.1.0"

// String returns the release number followed by the VCS revision when the
// binary was built from a checkout with VCS stamping, e.g.
// "0.1.0 (rev 58dbab8, modified)".
func String() string {
	b := Build()
	if b.Commit == "" {
		return Number
	}
	modified := ""
	if b.Modified {
		modified = ", modified"
	}
	return Number + " (rev " + b.Commit[:min(7, len(b.Commit))] + modified + ")"
}

// Info is what a covpipe binary knows of its build (`covpipe version
// --json`).
type Info struct {
	// Version is the release number, Number.
	Version string `json:"version"`
	// Go is the Go release the binary was built with, Platform its
	// GOOS/GOARCH.
	Go       string `json:"go"`
	Platform string `json:"platform"`
	// Module is the main module's path, ModuleVersion its version as
	// the go command stamped it ("(devel)" for a build in a checkout).
	Module        string `json:"module"`
	ModuleVersion string `json:"module_version,omitempty"`
	// Commit is the VCS revision, in full, of a build from a checkout
	// with VCS stamping ("" when unknown), and Modified says that the
	// checkout had uncommitted changes.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// Build returns what the running binary's build information
// (runtime/debug.ReadBuildInfo) says of it.
func Build() Info {
	b := Info{Version: Number, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Module, b.ModuleVersion = info.Main.Path, info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}
