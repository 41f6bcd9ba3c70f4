package features_test

import (
	"fmt"
	"log"

	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
)

func ExampleSet_Compute() {
	set, err := features.Parse("texture") // I, Ix, Iy, Ixx, Iyy
	if err != nil {
		log.Fatal(err)
	}
	// A 4×1 horizontal ramp, as imageio would load it.
	img := &imageio.Image{W: 4, H: 1, Gray: []float64{0, 0.25, 0.5, 0.75}}
	m, err := set.Compute(img)
	if err != nil {
		log.Fatal(err)
	}
	for k, name := range m.Names {
		fmt.Printf("%-3s %v\n", name, m.Planes[k])
	}
	// Output:
	// I   [0 0.25 0.5 0.75]
	// Ix  [0.25 0.5 0.5 0.25]
	// Iy  [0 0 0 0]
	// Ixx [0.25 0 0 0.25]
	// Iyy [0 0 0 0]
}

// One Workspace and Map per goroutine make the loop allocation-free.
func ExampleSet_ComputeTo() {
	set, err := features.Parse("x, y, R, G, B, R', G', B', R'', G'', B''") // the paper's re-identification features
	if err != nil {
		log.Fatal(err)
	}
	ws := set.NewWorkspace()
	var m features.Map // reused for every image
	for _, img := range []*imageio.Image{
		{W: 2, H: 1, Gray: []float64{0, 0}, R: []float64{0, 1}, G: []float64{0, 0}, B: []float64{0, 0}},
		{W: 2, H: 1, Gray: []float64{0, 0}},
	} {
		if err := set.ComputeTo(&m, img, ws); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(len(m.Planes), m.Names[5], m.Planes[5])
	}
	// Output:
	// 17 Rx [1 1]
	// features: feature "R" needs colour planes R, G, B, which the image lacks (load it with imageio.Options{Color: true})
}
