// Package gabor computes the magnitudes of the 40 Gabor wavelet responses
// used as per-pixel features of the face covariance descriptor
//
//	F(x, y) = [I(x,y), x, y, |G_{0,0}(x,y)|, …, |G_{0,7}(x,y)|, |G_{1,0}(x,y)|, …, |G_{4,7}(x,y)|]
//
// of Harandi, Sanderson, Hartley and Lovell, "Sparse Coding and Dictionary
// Learning for Symmetric Positive Definite Matrices: A Kernel Approach",
// ECCV 2012 (the paper), Sec. 5.1 "Face Recognition" (its equations there
// are unnumbered), after T. S. Lee, "Image representation using 2D Gabor
// wavelets", IEEE PAMI 18(10), 1996.
//
// # Definition
//
// For scale v = 0..4 and orientation u = 0..7, with k_v = 1/sqrt(2^(v−1))
// (√2, 1, 1/√2, 1/2, 1/(2√2) rad/pixel) and θ_u = πu/8,
//
//	ψ_{u,v}(x, y) = k_v²/(4π²) · exp(−k_v²(x²+y²)/(8π²)) · (exp(i k_v (x cos θ_u + y sin θ_u)) − exp(−2π²)),
//	G_{u,v}(x, y) = Σ_{s,t} I_ext(s, t) · ψ_{u,v}(x−s, y−t),
//
// and the feature is |G_{u,v}|. The Gaussian envelope has standard deviation
// σ_v = 2π/k_v pixels (4.44, 6.28, 8.89, 12.6, 17.8), equal to the carrier's
// wavelength, so each wavelet has a bandwidth of k_v/(2π) rad/pixel.
//
// Reading of the paper's formula: as printed it omits I(s,t) from the sum
// and pairs the offsets inconsistently ((x−s)²+(y−t)² in the envelope but
// (x−t)cos θ + (y−s)sin θ in the carrier); the package implements the
// intended 2-D convolution above. Its definition names the response
// G_{u,v} (orientation first) while its feature vector lists
// G_{0,0}…G_{0,7}, G_{1,0}…G_{4,7}, i.e. scale-major; the planes follow
// that listing.
//
// Conventions:
//   - x is the column offset and y the row offset (image row-major,
//     img[y·w+x]); θ is measured from +x towards +y, i.e. clockwise on
//     screen because rows grow downwards. With a y-up convention plane u
//     would be plane (8−u) mod 8.
//   - Plane index v·8+u (Index), short stable names "G_v<v>_u<u>" (Name).
//   - Convolution and correlation give the same magnitudes: ψ(−x,−y) is the
//     complex conjugate of ψ(x,y), so for real images correlating with ψ
//     yields the conjugate of convolving with it.
//
// # Kernel support
//
// The wavelets are sampled on the square |x|, |y| ≤ R_v = ceil(S·σ_v);
// square, so that each kernel stays exactly separable (below). The default
// S = 8.5 (DefaultSupport) puts the envelope below the float64 epsilon at
// the edge, so the kernels equal the infinitely supported sampled wavelets
// to double precision: R_v = 38, 54, 76, 107, 152 (kernels 77…305 pixels
// wide, far wider than a 32×32 crop). This costs nothing at face-crop
// sizes: both engines fold the border extension into the taps, so a kernel
// wider than the image costs the same as one as wide as the image. The
// conventional S = 3 would not be faster: truncation spreads the spectra
// over all coefficients, which the FFT engine then has to synthesise. What
// the long support buys:
//
//   - DC: the continuous wavelet is DC-free (the exp(−2π²) ≈ 2.7e-9 term
//     removes exactly the carrier's residual DC), and the infinite sampled
//     one is too, to far below rounding (its DC is the spectrum at aliases
//     ≥ 2π−k_0 ≈ 4.9 rad/pixel away, below e^−234). The truncated kernels
//     leak the sum outside the support: max_u |Σ Re ψ| is ≤ 1.7e-15 at
//     S = 8.5, but 6.8e-5 at S = 4 and 3.5e-3 at S = 3 (5.6e-4 of the peak
//     gain 2π); on an 8-bit face of mean ≈ 128 that is a spurious 0.45 in
//     |G| at S = 3, where a matched feature of contrast c gives πc. The
//     exp(−2π²) term itself is only visible once S ≳ 6.
//   - The wavelets' spectra are band-limited (to ~1e-16), which the FFT
//     engine exploits.
//
// Params.Support selects another S in [1, 20].
//
// # Borders
//
// ZeroPad (the default) treats pixels outside the image as zero and keeps
// the central, image-sized part of the linear convolution. That is what
// MATLAB's conv2(I, G, 'same') and imfilter do by default, and so what the
// paper's authors most likely ran; the paper does not say. On FERET at
// 32×32 it is also what the paper's accuracies need: with the same
// descriptors otherwise, RSR averages 59.88 with ZeroPad and 45.00 with
// Symmetric (docs/results.md). The zero border makes the coarse wavelets
// (σ_4 = 17.8 pixels see the whole of a 32×32 crop) respond to the step
// between the face and the padding: on a constant 32×32 image of value 128
// the mean magnitudes are 5.6 (v = 0) to 17.9 (v = 4), with peaks of 57.
// That response is the same for every face, but its variance across the
// crop is scaled by the face's brightness and its covariance with the face
// planes carries the face's outline, which the descriptors keep.
//
// Symmetric extends the image by half-sample mirror reflection, repeated
// with period 2n when a kernel is wider than the image: the extension is
// continuous and the kernels are DC-free, so a constant image gives ~1e-14.
// It is the choice of signal processing rather than of the paper, offered
// as an option (features spec "face;gabor-border=symmetric", describe
// --gabor-border symmetric). Half-sample symmetry also keeps the extended
// image even, which the DCT engine needs.
//
// # Engines
//
// Each kernel is a sum of two separable terms,
//
//	ψ = k²/(4π²) · (e·e^{ik x cos θ})(x) ⊗ (e·e^{ik y sin θ})(y) − k²/(4π²)·e^{−2π²} · e(x) ⊗ e(y),
//
// with e the 1-D envelope. Both engines work on the real parts of this
// factorisation, share the DC term across orientations and compute the
// orientation pairs (u, 8−u), whose x factors are complex conjugates, from
// one set of four real planes.
//
//   - Direct: separable spatial convolution. The border extension is folded
//     into per-output tap lists, exact for any kernel width and never longer
//     than the image side. 9 row and 17 column real convolutions per scale.
//   - FFT, Symmetric border: the mirror extension of the image is a cosine
//     series, so convolution with the even and odd parts of each factor is
//     diagonal in the DCT-II / DST-II bases. The image's 2-D DCT-II is taken
//     once per image (gonum dsp/fourier QuarterWaveFFT, rows then columns);
//     each filter's response is synthesised over the band of coefficients
//     where its spectrum exceeds 1e-14 of its peak (10 to 64 of 64 per axis
//     at 64×64), with the basis mirror symmetry halving the work.
//   - FFT, ZeroPad border: 2-D DFT of the zero-padded image (gonum real and
//     complex FFTs, rows then columns, once per image), cached 1-D kernel
//     spectra, inverse over the non-negligible columns and the image rows
//     only.
//   - Auto picks the engine with the lower modelled cost: the DCT engine for
//     Symmetric borders, Direct for ZeroPad below about 200 pixels.
//
// The engines agree to ~1e-14 relative (tested to 1e-9) and match a brute
// force 2-D convolution. The FFT engine does not pay for ZeroPad at face
// sizes: only offsets within the image contribute, so Direct's tap lists
// are at most n long, while the DFT works on the padded extent. Timings
// are in docs/benchmarks.md.
//
// # Use
//
// A Bank is immutable and safe for concurrent use; it caches one plan per
// image size. A Workspace holds per-goroutine buffers for one image size, so
// that MagnitudesTo allocates nothing; Magnitudes is the allocating form.
// Bad sizes, mismatched buffers and non-finite pixels are reported as
// errors wrapping ErrSize or ErrNotFinite, invalid Params as ErrParams.
package gabor
