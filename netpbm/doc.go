// Package netpbm decodes the Netpbm image formats (PBM, PGM, PPM in their
// plain and raw variants, and PAM) and encodes PGM and PPM.
//
// The formats are specified at https://netpbm.sourceforge.net/doc/ (pbm.html,
// pgm.html, ppm.html, pam.html). Importing the package registers the formats
// with the standard library's image package, so image.Decode reads them:
//
//	import _ "github.com/covpipe/covpipe/netpbm"
//
// # Sample scaling
//
// A Netpbm sample v lies in 0..maxval, and means the intensity v/maxval. The
// decoder keeps that meaning exactly:
//
//   - maxval 255: the samples are stored as they are in an 8-bit image
//     (*image.Gray, *image.RGBA, or *image.NRGBA when there is alpha);
//   - any other maxval (1..65535): the samples are stored in a 16-bit image
//     (*image.Gray16, *image.RGBA64, *image.NRGBA64) as round(v*65535/maxval),
//     so that u/65535 differs from v/maxval by at most 1/131070, half a 16-bit
//     step. Maxval 65535 stores the samples unchanged.
//
// Samples greater than maxval are an error. Raw samples are one byte when
// maxval < 256 and two bytes, most significant first, otherwise.
//
// PBM bitmaps (P1, P4), which have no maxval, decode to *image.Gray with 1
// (black) as 0 and 0 (white) as 255. PAM BLACKANDWHITE tuples follow the PAM
// rule instead, 0 black and 1 white, with the usual maxval (1) scaling.
//
// # Limits
//
// Header comments (# to end of line) are accepted wherever whitespace is, and
// in the rasters of the plain formats. Images of more than MaxSamples samples
// (width*height*channels) are refused before anything is allocated, and the
// pixel buffer grows only as data actually arrives, so a lying header cannot
// make the decoder allocate much more than the input's size. Only the first
// image of a multi-image stream is decoded.
package netpbm
