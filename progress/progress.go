// Package progress defines how covpipe's long-running stages (descriptor
// extraction, pairwise matrices, experiment repeats) report their progress,
// so that one progress bar or log writer serves them all.
package progress

// Reporter receives the progress of long stages, for progress bars or log
// lines. Implementations must be safe for concurrent use.
type Reporter interface {
	// Begin starts a stage of total units of work.
	Begin(stage string, total int)
	// Advance records n finished units.
	Advance(n int)
	// End finishes the stage.
	End()
}

// Nop is a Reporter that discards everything.
type Nop struct{}

// Begin does nothing.
func (Nop) Begin(string, int) {}

// Advance does nothing.
func (Nop) Advance(int) {}

// End does nothing.
func (Nop) End() {}

// Or returns r, or Nop when r is nil.
func Or(r Reporter) Reporter {
	if r == nil {
		return Nop{}
	}
	return r
}
