// Package imageio loads image files into float64 planes, the input of the
// feature stage: the intensity I(x,y) and the colour R, G, B of the pixel
// feature vectors of Harandi et al. (ECCV 2012, Sec. 5.1 "Face Recognition",
// "Texture Classification" and "Person Re-identification").
//
// # Formats
//
// PNG, JPEG, GIF (first frame), BMP, TIFF and the Netpbm formats (PBM, PGM,
// PPM, PAM; see package netpbm) are decoded by their registered image
// decoders; the format is recognised from the file's content, not its name.
//
// # Values
//
// Planes are row-major, Pix[y*W+x]. Values are in [0,1] (times
// Options.Scale): an 8-bit sample v gives v/255 and a 16-bit sample v gives
// v/65535, so 16-bit sources keep their precision. Netpbm files with a
// maxval other than 255 decode to 16-bit samples round(v*65535/maxval),
// within 1/131070 of v/maxval.
//
// The grey plane is the luminance (ITU-R BT.601 weights, as in JPEG and
// PIL)
//
//	Y = 0.299 R + 0.587 G + 0.114 B,
//
// computed in float64 from the float R, G, B; a pixel with R = G = B (so
// every pixel of a grey source) has Y equal to that value exactly.
//
// Y'CbCr images (JPEG) are converted by the JFIF equations in float64,
//
//	R = Y + 1.402 (Cr-128)
//	G = Y - 0.344136 (Cb-128) - 0.714136 (Cr-128)
//	B = Y + 1.772 (Cb-128),
//
// divided by 255 and clamped to [0,1]; the coefficients are derived from
// the luma weights, so the grey plane of an unclamped pixel is Y/255. Go's
// color.YCbCrToRGB computes the same in 8-bit fixed point (within 1.01 grey
// levels of this).
//
// Alpha is ignored: the colour of a pixel is its non-premultiplied colour.
// Images that store non-premultiplied colour (*image.NRGBA, *image.NRGBA64)
// give their stored colour; premultiplied ones (*image.RGBA, *image.RGBA64,
// and any other type, read through RGBA64At) are un-premultiplied as c/a,
// and fully transparent pixels are black.
//
// # Orientation
//
// A JPEG's EXIF orientation (tag 0x0112 in an APP1 "Exif" segment, values
// 1..8) is applied, so that the planes show the image upright as a viewer
// would: flips for 2 and 4, rotation by 180 degrees for 3, transpose for 5,
// rotation by 90 degrees clockwise for 6, transverse for 7 and rotation by
// 90 degrees anticlockwise for 8. Width and height swap for 5..8. A missing
// or malformed EXIF block means orientation 1.
//
// # Resizing
//
// When Options.Width and Height are set, the (oriented) planes are
// resampled by a separable two-pass filter with the semantics of PIL and
// github.com/disintegration/imaging, but in float64: output sample d of n
// takes its centre at source position s = (d+0.5)*m/n - 0.5 (m source
// samples); when downscaling, the filter's support is widened by m/n so
// that it also low-passes (antialiasing); the weights are clipped to the
// image and normalised to sum to 1. The horizontal pass comes first, and
// its result, like the final one, is clamped to [0,1] as imaging and PIL do
// (they store it in 8 bits); this matters only where a filter with negative
// lobes (CatmullRom, Lanczos3) overshoots. A dimension whose size does not
// change is not resampled. With Options.Color the colour planes are
// resampled and the grey plane is their luminance; without, the grey plane
// is resampled. By linearity the two agree up to rounding, except where
// CatmullRom or Lanczos3 overshoot and are clamped. On 8-bit images the
// result times 255 is within 1 grey level of imaging.Resize for Box and
// Linear and within 1.5 for CatmullRom and Lanczos3 (imaging's rounding of
// its intermediate result to 8 bits); Nearest is identical.
//
// # Reduced-scale JPEG decoding
//
// With a resize target, a baseline or extended-sequential JPEG is decoded
// straight from its DCT coefficients at 1/8, 1/4 or 1/2 of its size when
// that is enough, as libjpeg's scale_denom does (see package
// imageio/internal/jpegscale): at 1/8 each 8x8 block becomes its mean
// (the DC term), at 1/4 and 1/2 a 2x2 or 4x4 inverse DCT of its
// low-frequency coefficients.
// This skips most of the inverse DCT, chroma upsampling and colour
// conversion. The planes are then oriented and resized as above. A w x h
// file decoded at scale s is ceil(w·s) x ceil(h·s) pixels, and
// Options.JPEGScale picks the smallest s whose image, once oriented (a
// 90-degree EXIF rotation swaps the dimensions), is
//
//   - JPEGScaleAuto (the default): at least twice the target in both
//     dimensions, so that the resize filter still reduces it at least
//     twofold and low-passes across the DCT blocks as it does a full
//     decode. The chroma keeps the file's subsampling, which still has
//     the target's resolution. A 128x256 pedestrian resized to 32x64 is
//     decoded at 1/2, to 64x128; its planes are within a grey level of a
//     full decode's resized on average (0.3% of the range; 9% at most,
//     on noisy chroma);
//   - JPEGScaleFast: at least the target. The same pedestrian is decoded
//     at 1/4, straight to 32x64, and the resize filter does nothing: each
//     pixel is the DCT's estimate of a 4x4 block mean, sharper than the
//     filter's weighted mean of a full decode, which shows most in the
//     derivatives' planes. The chroma is decoded at up to the luma's
//     resolution (4:2:0 gives 4:4:4 planes), as the target needs;
//
// and JPEGScaleOff decodes at full size. Image.DecodeScale says which
// scale was used. Progressive, arithmetic-coded, 12-bit, CMYK and
// RGB-coded files, targets that no reduced scale fits, and any file that
// the reduced decoder rejects are decoded at full size by image/jpeg, as
// with JPEGScaleOff, so that a corrupt file gives image/jpeg's error.
//
// # Performance
//
// A Loader keeps its file buffer, intermediate planes and resampling weight
// tables between calls and writes into a caller's Image, so that loading
// many files allocates only what the image decoders themselves allocate.
// It is the hot path for a worker pool: one Loader per worker.
package imageio
