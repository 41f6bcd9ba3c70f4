package experiment

// ShrinkSynthetic sets the samples and the training share of p's
// synthetic tasks, for the tests of package experiment_test.
func ShrinkSynthetic(p *Plan, samples int, train float64) {
	for _, task := range p.tasks {
		if st, ok := task.(*syntheticTask); ok {
			st.Synthetic.Samples, st.Synthetic.Train = samples, train
		}
	}
}
