package netpbm_test

import (
	"bytes"
	"fmt"
	"image"
	"log"
	"strings"

	"github.com/covpipe/covpipe/netpbm"
)

// A PGM with maxval 1000 decodes to a 16-bit image whose samples, divided
// by 65535, are the PGM's samples divided by 1000 (to within 1/131070).
func ExampleDecode() {
	img, err := netpbm.Decode(strings.NewReader("P2\n# 3x1, maxval 1000\n3 1\n1000\n0 500 1000\n"))
	if err != nil {
		log.Fatal(err)
	}
	g := img.(*image.Gray16)
	for x := range 3 {
		fmt.Printf("%d %.4f\n", g.Gray16At(x, 0).Y, float64(g.Gray16At(x, 0).Y)/65535)
	}
	// Output:
	// 0 0.0000
	// 32768 0.5000
	// 65535 1.0000
}

func ExampleEncode() {
	img := image.NewGray16(image.Rect(0, 0, 2, 1))
	img.Pix = []byte{0x12, 0x34, 0xff, 0xff}
	var buf bytes.Buffer
	if err := netpbm.Encode(&buf, img, nil); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", buf.String())
	// Image.Decode reads it back through the registered "pgm" format.
	back, format, err := image.Decode(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(format, back.Bounds().Dx(), back.At(0, 0))
	// Output:
	// "P5\n2 1\n65535\n\x124\xff\xff"
	// pgm 2 {4660}
}
