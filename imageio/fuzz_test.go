package imageio_test

import (
	"testing"

	"github.com/covpipe/covpipe/imageio"
)

// FuzzDecode feeds arbitrary bytes to every decoder through Loader.Decode,
// with resizing and colour: it must not panic, and a decoded image must
// have planes of the target size with values in [0,1].
func FuzzDecode(f *testing.F) {
	for _, file := range testFiles(f) {
		f.Add(file.data)
	}
	l, err := imageio.NewLoader(imageio.Options{Color: true, Width: 5, Height: 3, Filter: imageio.Lanczos3})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var img imageio.Image
		if err := l.Decode(data, &img); err != nil {
			return
		}
		if img.W != 5 || img.H != 3 || len(img.Gray) != 15 || len(img.R) != 15 {
			t.Fatalf("decoded to %dx%d with %d grey values", img.W, img.H, len(img.Gray))
		}
		for i, v := range img.Gray {
			if !(v >= 0 && v <= 1) || !(img.R[i] >= 0 && img.R[i] <= 1) {
				t.Fatalf("value %v out of [0,1]", v)
			}
		}
	})
}
