package experiment

import "errors"

// listData returns the descriptors of the config's dataset, one Data per
// ridge value.
func (e *engine) listData() ([]*Data, error) {
	return nil, errors.New("not yet")
}
