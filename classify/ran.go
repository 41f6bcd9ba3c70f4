package classify

import (
	"slices"
	"sync"
)

// ranOutcomes holds the outcomes of the methods of Split.Share that Run
// ran on a split, for a best method's chosen candidate to answer with.
type ranOutcomes struct {
	mu   sync.Mutex
	outs map[Method]*Outcome
}

// put records m's outcome o, when m is one of share.
func (r *ranOutcomes) put(share []Method, m Method, o *Outcome) {
	if !slices.Contains(share, m) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.outs == nil {
		r.outs = map[Method]*Outcome{}
	}
	r.outs[m] = o
}

// get returns m's recorded outcome, nil when there is none.
func (r *ranOutcomes) get(m Method) *Outcome {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outs[m]
}
