package datasets

import (
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// checkSize fails t unless l, listed with error err, has n items in k
// classes.
func checkSize(t *testing.T, l *List, err error, n, k int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != n || len(l.Labels()) != k {
		t.Fatalf("%d items in %d classes, want %d in %d", l.Len(), len(l.Labels()), n, k)
	}
}

func TestRealFERET(t *testing.T) {
	l, err := FERET(shareddata.Dir(t, "feret-b-32"))
	checkSize(t, l, err, 1400, 200)
	poses := map[string]int{}
	perSubject := map[string]int{}
	for _, it := range l.Items {
		poses[it.Meta["pose"]]++
		perSubject[it.Label]++
	}
	for _, p := range []string{"ba", "bj", "bk", "bd", "be", "bf", "bg"} {
		if poses[p] != 200 {
			t.Errorf("pose %s: %d images, want 200", p, poses[p])
		}
	}
	if len(poses) != 7 {
		t.Errorf("poses %v, want 7", poses)
	}
	for s, n := range perSubject {
		if n != 7 {
			t.Errorf("subject %s has %d images, want 7", s, n)
		}
	}
	train := l.Filter(Pose("ba", "bj", "bk"))
	if train.Len() != 600 || len(train.Labels()) != 200 {
		t.Errorf("training poses: %d items, %d subjects; want 600, 200", train.Len(), len(train.Labels()))
	}
}

func TestRealBrodatz(t *testing.T) {
	l, err := Brodatz(shareddata.Dir(t, "brodatz"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for n := 1; n <= 112; n++ {
		if n != 14 {
			want = append(want, fmt.Sprintf("D%d", n))
		}
	}
	slices.Sort(want)
	if l.Len() != 111 || !slices.Equal(l.Labels(), want) {
		t.Errorf("%d items, labels %v; want 111, D1..D112 without D14", l.Len(), l.Labels())
	}
}

func TestRealMiniMARS(t *testing.T) {
	dir := shareddata.Dir(t, "mini-mars")
	l, err := Open("mars:" + dir)
	checkSize(t, l, err, 5572, 32)
	perClass := map[string]int{}
	cameras := map[string]int{}
	tracklets := map[string]bool{}
	for _, it := range l.Items {
		if it.Meta == nil || it.Meta["pid"] != it.Label {
			t.Fatalf("item %s: meta %v, want MARS meta with pid %s", it.Rel, it.Meta, it.Label)
		}
		perClass[it.Label]++
		cameras[it.Meta["camera"]]++
		tracklets[it.Label+"/"+it.Meta["camera"]+"/"+it.Meta["tracklet"]] = true
	}
	lo, hi := l.Len(), 0
	for _, n := range perClass {
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo != 27 || hi != 464 {
		t.Errorf("class sizes %d..%d, want 27..464", lo, hi)
	}
	multi := 0
	perID := map[string]map[string]bool{}
	for _, it := range l.Items {
		if perID[it.Label] == nil {
			perID[it.Label] = map[string]bool{}
		}
		perID[it.Label][it.Meta["camera"]] = true
	}
	for _, cams := range perID {
		if len(cams) > 1 {
			multi++
		}
	}
	t.Logf("mini-mars: images per camera %v, %d tracklets, %d of 32 identities seen by more than one camera", cameras, len(tracklets), multi)
	if multi == 0 {
		t.Error("no identity is seen by two cameras: a cross-camera protocol is impossible")
	}
}

func TestRealUSCSIPI(t *testing.T) {
	dir := shareddata.Dir(t, "usc-sipi-mosaics")
	files, err := USCSIPIMosaics(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name+"→"+filepath.Base(f.LabelMap))
	}
	if want := []string{"texmos1→.", "texmos2→texmos2.s512.tiff", "texmos3→texmos3.s512.tiff", "texmos3b→texmos3.s512.tiff"}; !slices.Equal(names, want) {
		t.Errorf("mosaics %v, want %v", names, want)
	}
	tiles := Tiles(256, 256, 32)
	// On the 256x256 resize, texmos2's top half and lower-left quadrant
	// are 64x64 and 32x32 cells aligned with the tiles (48 pure tiles);
	// its lower-right quadrant is a checkerboard of 16x16 and 8x8 cells
	// (16 tiles of purity < 0.5). texmos3 has curved boundaries: few pure
	// tiles, most above 0.75.
	for _, tc := range []struct {
		name            string
		pure, minKept75 int
	}{{"texmos2", 48, 48}, {"texmos3", 7, 40}} {
		m, err := LoadLabelMap(filepath.Join(dir, tc.name+".s512.tiff"))
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{32, 64, 96, 128, 160, 192, 224, 255}; m.W != 512 || m.H != 512 || !slices.Equal(m.Labels(), want) {
			t.Fatalf("%s: %dx%d labels %v, want 512x512 %v", tc.name, m.W, m.H, m.Labels(), want)
		}
		all, err := m.LabelRegions(tiles, RegionOptions{Width: 256, Height: 256})
		if err != nil {
			t.Fatal(err)
		}
		if len(all.Kept) != 64 {
			t.Fatalf("%s: %d regions kept at purity 0, want 64", tc.name, len(all.Kept))
		}
		hist := map[string]int{}
		pure, perLabel := 0, map[int]int{}
		for _, r := range all.Kept {
			switch p := r.Purity; {
			case p == 1:
				hist["1"]++
				pure++
			case p >= 0.9:
				hist["[0.9,1)"]++
			case p >= 0.75:
				hist["[0.75,0.9)"]++
			case p >= 0.5:
				hist["[0.5,0.75)"]++
			default:
				hist["<0.5"]++
			}
			if r.Purity >= 0.75 {
				perLabel[r.Label]++
			}
		}
		kept := map[float64]int{}
		for _, mp := range []float64{0.5, 0.75, 0.9} {
			rl, err := m.LabelRegions(tiles, RegionOptions{Width: 256, Height: 256, MinPurity: mp})
			if err != nil {
				t.Fatal(err)
			}
			kept[mp] = len(rl.Kept)
		}
		// The alternative: vote on the map resized with Nearest.
		near, err := imageio.Load(filepath.Join(dir, tc.name+".s512.tiff"), imageio.Options{Width: 256, Height: 256, Filter: imageio.Nearest, Scale: 255})
		if err != nil {
			t.Fatal(err)
		}
		nm := &LabelMap{W: 256, H: 256, Pix: make([]int, 256*256)}
		for i, v := range near.Gray {
			nm.Pix[i] = int(v + 0.5)
		}
		alt, err := nm.LabelRegions(tiles, RegionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		disagree := 0
		for i, r := range all.Kept {
			if alt.Kept[i].Label != r.Label {
				disagree++
			}
		}
		t.Logf("%s: purity histogram of 64 tiles %v; kept at purity 0.5/0.75/0.9: %d/%d/%d; tiles with purity >= 0.75 per label %v; Nearest-resized map disagrees on %d labels",
			tc.name, hist, kept[0.5], kept[0.75], kept[0.9], perLabel, disagree)
		if pure != tc.pure || kept[0.75] < tc.minKept75 {
			t.Errorf("%s: %d pure tiles and %d of purity >= 0.75, want %d and at least %d", tc.name, pure, kept[0.75], tc.pure, tc.minKept75)
		}
		if len(perLabel) != 8 {
			t.Errorf("%s: labels with a tile of purity >= 0.75: %v, want all 8", tc.name, perLabel)
		}
	}
}

func TestRealBrodatzMosaics(t *testing.T) {
	album, err := Brodatz(shareddata.Dir(t, "brodatz"))
	if err != nil {
		t.Fatal(err)
	}
	tiles := Tiles(256, 256, 32)
	for i, tc := range []struct {
		k      int
		layout Layout
	}{{5, GridLayout}, {5, VoronoiLayout}, {10, GridLayout}, {10, VoronoiLayout}, {16, GridLayout}, {16, VoronoiLayout}} {
		m, err := BuildMosaic(album, MosaicOptions{K: tc.k, Layout: tc.layout}, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		checkMosaicShape(t, m, tc.k, 256, 0.5)
		for _, c := range m.Crops {
			if c.Dx() != 512 || !c.In(image.Rect(0, 0, 640, 640)) {
				t.Errorf("window %v, want 512x512 inside the 640x640 album image", c)
			}
		}
		rl, err := m.Labels.LabelRegions(tiles, RegionOptions{MinPurity: 0.75})
		if err != nil {
			t.Fatal(err)
		}
		perLabel := map[int]int{}
		for _, r := range rl.Kept {
			perLabel[r.Label]++
		}
		counts := make([]string, 0, tc.k)
		for _, l := range m.Levels {
			counts = append(counts, fmt.Sprint(perLabel[l]))
		}
		t.Logf("%d textures, %v (%s): %d of 64 tiles kept at purity 0.75, per texture %s",
			tc.k, tc.layout, strings.Join(m.Textures, " "), len(rl.Kept), strings.Join(counts, " "))
		if len(perLabel) != tc.k {
			t.Errorf("%d-texture %v mosaic: only %d textures have a tile of purity >= 0.75", tc.k, tc.layout, len(perLabel))
		}
	}
}
