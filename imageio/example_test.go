package imageio_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/imageio"
)

// writeExample writes a 4x2 PGM whose grey levels rise left to right, and
// returns its path.
func writeExample(dir string) string {
	path := filepath.Join(dir, "ramp.pgm")
	data := append([]byte("P5\n4 2\n255\n"), 0, 85, 170, 255, 0, 85, 170, 255)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
	return path
}

func ExampleLoad() {
	dir, err := os.MkdirTemp("", "imageio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := writeExample(dir)

	img, err := imageio.Load(path, imageio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Format, img.W, img.H, img.Depth)
	fmt.Printf("%.3f\n", img.Gray[:4])

	// Halve the width with the box filter: pairs of pixels are averaged.
	half, err := imageio.Load(path, imageio.Options{Width: 2, Height: 2, Filter: imageio.Box, Scale: 255})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.2f\n", half.Gray)
	// Output:
	// pgm 4 2 8
	// [0.000 0.333 0.667 1.000]
	// [42.50 212.50 42.50 212.50]
}

// A Loader per worker reuses its buffers and the caller's Image: after the
// first file, loading allocates only what the image decoder allocates. The
// linear filter, widened to two source pixels on each side when halving,
// weighs the ramp 0, 85, 170 by 3/4, 3/4, 1/4 for the first output pixel.
func ExampleLoader() {
	dir, err := os.MkdirTemp("", "imageio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	paths := []string{writeExample(dir), writeExample(dir)}

	l, err := imageio.NewLoader(imageio.Options{Color: true, Width: 2, Height: 1})
	if err != nil {
		log.Fatal(err)
	}
	var img imageio.Image // reused for every file
	for _, path := range paths {
		if err := l.Load(path, &img); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%dx%d from %dx%d: R %.3f\n", img.W, img.H, img.SourceW, img.SourceH, img.R)
	}
	// Output:
	// 2x1 from 4x2: R [0.238 0.762]
	// 2x1 from 4x2: R [0.238 0.762]
}
