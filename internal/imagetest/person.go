package imagetest

// Clothes are the shirt and trousers colours (R, G, B in [0, 1]) of three
// drawn people, one per identity of the re-identification tests.
var Clothes = [3][2][3]float64{
	{{0.1, 0.2, 0.8}, {0.4, 0.25, 0.1}},
	{{0.8, 0.1, 0.1}, {0.1, 0.1, 0.1}},
	{{0.9, 0.9, 0.2}, {0.1, 0.2, 0.8}},
}

// PersonW and PersonH are the size of a drawn person.
const PersonW, PersonH = 32, 64

// PersonPlanes returns the planes y, R, G, B (features "y,R,G,B" at step
// 1), one after another, of a person drawn on grey: a skin-coloured head,
// a shirt and trousers of the colours clothes, shifted right by shift
// pixels.
func PersonPlanes(clothes [2][3]float64, shift int) []float64 {
	const w, h = PersonW, PersonH
	v := make([]float64, 4*w*h)
	for i := range w * h {
		px, py := i%w-shift, i/w
		col := [3]float64{0.5, 0.5, 0.5}
		switch {
		case py >= 13 && py < 37 && px >= 8 && px < 23:
			col = clothes[0]
		case py >= 37 && py < 61 && px >= 10 && px < 21:
			col = clothes[1]
		case py >= 5 && py < 13 && px >= 12 && px < 19:
			col = [3]float64{0.9, 0.7, 0.6}
		}
		v[i] = float64(py)
		for k := range 3 {
			v[(k+1)*w*h+i] = col[k]
		}
	}
	return v
}
