package datasets_test

import (
	"fmt"
	"image"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/covpipe/covpipe/datasets"
)

// mkfiles creates empty files (slash-separated paths) under a new
// temporary folder and returns it; list sources read names only.
func mkfiles(rels ...string) string {
	dir, err := os.MkdirTemp("", "datasets-example")
	if err != nil {
		log.Fatal(err)
	}
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return dir
}

func ExampleFERET() {
	dir := mkfiles("00001ba.png", "00001bd.png", "00002ba.png", "00002bj.png", "00002bg.png")
	defer os.RemoveAll(dir)

	l, err := datasets.FERET(dir)
	if err != nil {
		log.Fatal(err)
	}
	train := l.Filter(datasets.Pose("ba", "bj", "bk"))
	test := l.Filter(datasets.Pose("bd"))
	fmt.Println(l.Len(), "images of subjects", l.Labels())
	for _, it := range train.Items {
		fmt.Println("train", it.Rel, it.Label, it.Meta["pose"])
	}
	for _, it := range test.Items {
		fmt.Println("test", it.Rel, it.Label, it.Meta["pose"])
	}
	// Output:
	// 5 images of subjects [00001 00002]
	// train 00001ba.png 00001 ba
	// train 00002ba.png 00002 ba
	// train 00002bj.png 00002 bj
	// test 00001bd.png 00001 bd
}

func ExampleOpen() {
	dir := mkfiles("0003/0003C1T0001F001.jpg", "0003/0003C4T0003F010.jpg", "0015/0015C1T0001F001.jpg", "0015/notes.txt")
	defer os.RemoveAll(dir)

	// mars:DIR is a folder-per-class tree with MARS file-name metadata.
	l, err := datasets.Open("mars:" + dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range l.Items {
		fmt.Println(it.Rel, it.Label, "camera", it.Meta["camera"], "tracklet", it.Meta["tracklet"])
	}
	// Output:
	// 0003/0003C1T0001F001.jpg 0003 camera 1 tracklet 0001
	// 0003/0003C4T0003F010.jpg 0003 camera 4 tracklet 0003
	// 0015/0015C1T0001F001.jpg 0015 camera 1 tracklet 0001
}

func ExampleCSV() {
	dir := mkfiles("img/cat1.png", "img/dog1.png")
	defer os.RemoveAll(dir)
	manifest := filepath.Join(dir, "list.csv")
	content := "path,label,source\nimg/dog1.png,dog,web\nimg/cat1.png,cat,\n"
	if err := os.WriteFile(manifest, []byte(content), 0o644); err != nil {
		log.Fatal(err)
	}

	l, err := datasets.CSV(manifest)
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range l.Items {
		fmt.Println(it.Rel, it.Label, it.Meta)
	}
	// Write it back: the same manifest, in its order.
	if err := datasets.WriteCSV(os.Stdout, l); err != nil {
		log.Fatal(err)
	}
	// Output:
	// img/dog1.png dog map[source:web]
	// img/cat1.png cat map[]
	// path,label,source
	// img/dog1.png,dog,web
	// img/cat1.png,cat,
}

// Regions of a 2x2 image labelled on a 4x4 map: each region covers 2x2
// map pixels; the last one is 3/4 pure.
func ExampleLabelMap_LabelRegions() {
	m := &datasets.LabelMap{W: 4, H: 4, Pix: []int{
		32, 32, 64, 64,
		32, 32, 64, 64,
		96, 96, 96, 128,
		96, 96, 128, 128,
	}}
	rl, err := m.LabelRegions(datasets.Tiles(2, 2, 1), datasets.RegionOptions{Width: 2, Height: 2, MinPurity: 0.9})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rl.Kept {
		fmt.Println("kept", r.Index, r.Rect, r.Label, r.Purity)
	}
	for _, r := range rl.Dropped {
		fmt.Println("dropped", r.Index, r.Rect, r.Label, r.Purity)
	}
	// Output:
	// kept 0 (0,0)-(1,1) 32 1
	// kept 1 (1,0)-(2,1) 64 1
	// kept 2 (0,1)-(1,2) 96 1
	// dropped 3 (1,1)-(2,2) 128 0.75
}

func ExampleBuildMosaic() {
	// A tiny album: three flat textures of grey levels 10, 20, 30.
	dir := mkfiles()
	defer os.RemoveAll(dir)
	for i, name := range []string{"D1", "D2", "D3"} {
		g := image.NewGray(image.Rect(0, 0, 8, 8))
		for j := range g.Pix {
			g.Pix[j] = uint8(10 * (i + 1))
		}
		f, err := os.Create(filepath.Join(dir, name+".png"))
		if err != nil {
			log.Fatal(err)
		}
		if err := png.Encode(f, g); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
	album, err := datasets.Brodatz(dir)
	if err != nil {
		log.Fatal(err)
	}

	// Three textures on a 6x6 grid canvas: a band of 2 cells over a band
	// of 1, each cell of 12 pixels.
	m, err := datasets.BuildMosaic(album, datasets.MosaicOptions{
		Textures: []string{"D3", "D1", "D2"}, Size: 6, Scale: 1,
	}, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Textures, m.Levels)
	for y := range m.H {
		fmt.Println(m.Labels.Pix[y*m.W:(y+1)*m.W], m.Gray[y*m.W:(y+1)*m.W])
	}
	// Output:
	// [D3 D1 D2] [85 170 255]
	// [85 85 85 170 170 170] [30 30 30 10 10 10]
	// [85 85 85 170 170 170] [30 30 30 10 10 10]
	// [85 85 85 170 170 170] [30 30 30 10 10 10]
	// [85 85 85 170 170 170] [30 30 30 10 10 10]
	// [255 255 255 255 255 255] [20 20 20 20 20 20]
	// [255 255 255 255 255 255] [20 20 20 20 20 20]
}
