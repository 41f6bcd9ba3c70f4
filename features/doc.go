// Package features computes named per-pixel feature planes F(x, y), the
// input of the region covariance descriptors of Harandi, Sanderson, Hartley
// and Lovell, "Sparse Coding and Dictionary Learning for Symmetric Positive
// Definite Matrices: A Kernel Approach", ECCV 2012 (the paper), Sec. 5.1,
// after Tuzel, Porikli and Meer, "Region covariance: a fast descriptor for
// detection and classification", ECCV 2006, and "Pedestrian detection via
// classification on Riemannian manifolds", IEEE PAMI 30(10), 2008.
//
// # Feature sets
//
// A Set is an ordered list of feature names; the descriptor dimension d is
// its length after expansion. The paper's sets (its equations are
// unnumbered) are available as presets:
//
//	texture  I, Ix, Iy, Ixx, Iyy                        (d = 5;  Sec. 5.1 "Texture Classification", Sec. 5.2)
//	face     I, x, y, gabor                             (d = 43; Sec. 5.1 "Face Recognition")
//	reid     x, y, R, G, B, R', G', B', R'', G'', B''   (d = 17; Sec. 5.1 "Person Re-identification")
//
// Any subset and order of the names below may be used instead, and a preset
// or group name inside a list expands in place: "texture,x,y" is
// I, Ix, Iy, Ixx, Iyy, x, y. Parse reads the comma-separated form, with
// white space around names ignored; names are case-sensitive. Each
// expanded plane may appear only once.
//
// # Definitions
//
// The image is an imageio.Image, with planes row-major, P(x, y) =
// P[y·W+x], x the 0-based column and y the 0-based row.
//
//	x, y            the pixel's column and row, 0, 1, …, W−1 and 0, 1, …, H−1.
//	I               the grey plane imageio.Image.Gray (BT.601 luminance), values as loaded: [0,1] unless imageio.Options.Scale.
//	R, G, B         the colour planes; the image must have been loaded with imageio.Options.Color.
//	Cx              |C(x+1, y) − C(x−1, y)|           for C in I, R, G, B
//	Cy              |C(x, y+1) − C(x, y−1)|
//	Cxx             |C(x+1, y) + C(x−1, y) − 2C(x, y)|
//	Cyy             |C(x, y+1) + C(x, y−1) − 2C(x, y)|
//	C', C''         groups: C' = Cx, Cy (the paper's [|∂C/∂x|, |∂C/∂y|]) and C'' = Cxx, Cyy.
//	G_v<v>_u<u>     |G_{u,v}(x, y)|, the Gabor magnitude of scale v = 0..4 and orientation u = 0..7.
//	gabor           group: the 40 Gabor planes G_v0_u0, …, G_v0_u7, G_v1_u0, …, G_v4_u7 (scale-major, plane v·8+u).
//
// The derivatives are the filters [−1 0 1] and [1 −2 1] of Tuzel et al.,
// without the factor 1/2 of a central difference, and with the edge pixel
// replicated beyond the border: C(−1, y) = C(0, y) and C(W, y) = C(W−1, y),
// so at x = 0, Cx = |C(1, y) − C(0, y)| and Cxx = |C(1, y) − C(0, y)|; a
// side of one pixel gives 0. The Gabor planes are those of
// gabor.Bank.MagnitudesTo on the grey plane, with the automatic engine,
// support 8.5σ and, by default, zero padding with 'same' output (MATLAB's
// conv2(I, G, 'same'), which the paper's authors most likely ran; the paper
// does not say). The spec option "gabor-border=symmetric" (for example
// "face; gabor-border=symmetric") or Set.WithGaborBorder selects mirror
// reflection instead; see package gabor for the wavelets and the borders.
//
// Neither the origin of x and y nor the scale of a plane changes what the
// covariance descriptors compare: a covariance is invariant to shifting a
// feature, and scaling features by a diagonal D maps the descriptor C to
// DCD, to which the Stein divergence and the affine-invariant metric are
// invariant. They matter only where a regulariser adds εI to a descriptor.
//
// # Errors
//
// Computing returns an error, and leaves the destination unchanged, for a
// nil or empty image, a plane the set needs whose length is not W·H, missing
// colour planes, and NaN or infinite pixels in a plane the set reads (a set
// of x and y alone reads no pixels). Images with Gabor planes must also have
// sides of at most gabor.MaxSide.
//
// # Performance
//
// A Set is immutable and safe for concurrent use. ComputeTo writes into a
// caller's Map and uses a per-goroutine Workspace, so that computing the
// features of many images of one size allocates nothing. The derivatives
// of a channel take one pass over it, whichever of them the set keeps, and
// the check for non-finite pixels one more; the Gabor planes cost far more
// than all others (see package gabor).
//
// # Adding a feature plane
//
// A family of planes is one file and one line:
//
//  1. A file defines a family value: the names of its single planes and of
//     its groups, what they read from the image (readsNothing, readsGrey or
//     readsColour; ComputeTo checks those image planes before computing any
//     plane), and build, which returns, for the planes a set keeps, the
//     constructor of a per-goroutine pass. The pass's compute writes the
//     planes in one pass over the image: out[i] is the destination of plane
//     i, nil when the set does not keep it, so that planes computed
//     together (the derivatives of a channel) send the others to scratch.
//     A pass with buffers reallocates them when the image size changes (in
//     a prepare method when that can fail); shared(p) is the build of a
//     family whose pass p keeps nothing.
//  2. A line in the table families (families.go) puts the family in the
//     order of this documentation and of the valid names in error
//     messages. A preset is a line in the table presets.
//  3. The planes are documented under Definitions and added to everyPlane
//     and straightforward in planes_test.go, which compare every plane
//     with a per-pixel evaluation of its definition (TestEveryPlane fails
//     until they are).
//
// For example, a gradient magnitude Im = sqrt(Ix² + Iy²) is a file
// magnitude.go,
//
//	var magnitude = family{
//		planes: []string{"Im"},
//		reads:  readsGrey,
//		build:  shared(magnitudePass{}),
//	}
//
//	type magnitudePass struct{}
//
//	func (magnitudePass) compute(out [][]float64, img *imageio.Image) error {
//		g, w, h := img.Gray, img.W, img.H
//		for i := range out[0] {
//			x, y := i%w, i/w
//			dx := g[y*w+min(x+1, w-1)] - g[y*w+max(x-1, 0)]
//			dy := g[min(y+1, h-1)*w+x] - g[max(y-1, 0)*w+x]
//			out[0][i] = math.Hypot(dx, dy)
//		}
//		return nil
//	}
//
// and the line "magnitude," in families, after the channel families.
package features
