package plots

// cmcSample resembles the CMC curves of Fig. 6 (ETHZ Sequence 1).
func cmcSample() []Series {
	return []Series{
		{Name: "HPE", Y: []float64{79.5, 83.8, 86.1, 87.6, 88.7, 89.6, 90.3}},
		{Name: "SDALF", Y: []float64{64.8, 73.1, 77.4, 80.5, 82.4, 84.0, 85.2}},
		{Name: "RLPP", Y: []float64{73.6, 81.0, 84.7, 86.9, 88.6, 89.7, 90.6}},
		{Name: "RSR (proposed)", Y: []float64{91.4, 94.6, 95.9, 96.7, 97.3, 97.8, 98.1},
			Err: []float64{1.9, 1.4, 1.1, 0.9, 0.8, 0.7, 0.6}},
	}
}

// barsSample resembles the Brodatz results of Fig. 4.
func barsSample() Bars {
	return Bars{
		Title:  "Brodatz texture classification",
		YLabel: "Average recognition accuracy (%)",
		XLabel: "Test ID",
		Groups: []string{"5c", "5m", "5v", "5v2", "5v3", "10", "10v", "16c", "16v"},
		Series: []Series{
			{Name: "logE-SR", Y: []float64{89.2, 73.4, 79.0, 80.9, 79.5, 74.6, 70.1, 73.2, 68.3},
				Err: []float64{3.1, 4.0, 3.6, 2.9, 3.3, 2.7, 3.0, 2.2, 2.5}},
			{Name: "TSC", Y: []float64{98.8, 72.6, 86.9, 83.0, 76.2, 80.3, 79.1, 75.6, 65.5},
				Err: []float64{1.0, 4.4, 3.2, 3.5, 4.1, 2.8, 2.6, 2.1, 2.9}},
			{Name: "RSR", Y: []float64{98.0, 87.4, 92.6, 88.2, 83.1, 87.5, 84.4, 79.3, 76.8},
				Err: []float64{1.2, 3.0, 2.1, 2.6, 3.4, 2.0, 2.3, 1.9, 2.4}},
		},
	}
}

// linesSample resembles the energy curves of Fig. 7: J against the
// iteration for two dictionaries and the true sources.
func linesSample() []Series {
	learned, kmeans, sources := make([]float64, 21), make([]float64, 21), make([]float64, 21)
	for i := range learned {
		learned[i] = 61 + 10/float64(i+1)
		kmeans[i] = 64.5 + 2/float64(i+1)
		sources[i] = 70
	}
	return []Series{{Name: "learned", Y: learned}, {Name: "kmeans", Y: kmeans}, {Name: "sources", Y: sources}}
}
