// Package jpegscale decodes baseline JPEG files at 1/1, 1/2, 1/4 or 1/8 of
// their size straight from their DCT coefficients, the way libjpeg's
// scale_denom does: at 1/8 each 8x8 block becomes its DC value (the block
// mean), at 1/4 and 1/2 a 2x2 or 4x4 inverse DCT of the block's
// low-frequency coefficients gives the block's 2x2 or 4x4 pixels. This
// skips most of the inverse DCT and shrinks the chroma upsampling and the
// colour conversion, which dominate decoding small images that are to be
// resized anyway.
//
// It is written from ITU-T T.81 (ISO/IEC 10918-1) and covers the
// sequential DCT-based Huffman processes with 8-bit samples: baseline
// (SOF0, Sec. 4.5) and extended sequential (SOF1) frames, Huffman tables
// (DHT, B.2.4.2), quantisation tables of 8 or 16 bits (DQT, B.2.4.1),
// restart intervals (DRI and RSTn, B.2.4.4 and F.1.2.3), interleaved and
// non-interleaved scans (A.2), one (grey) or three (Y'CbCr) components
// with the sampling factors of 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1 and
// 4:1:0. APPn and COM segments are skipped, but for the JFIF (APP0) and
// Adobe (APP14) markers that say what the colour components are.
//
// Progressive (SOF2), lossless and hierarchical frames, arithmetic coding,
// 12-bit samples, 2 or 4 components (CMYK, YCCK), RGB-coded files (Adobe
// transform 0, or components named R, G, B without JFIF), DNL markers and
// other sampling factors give an error wrapping ErrUnsupported, for the
// caller to fall back to image/jpeg. Corrupt or truncated files give an
// error wrapping ErrFormat that names the problem; a Decoder does not
// panic on them and its work is bounded by the frame size.
//
// The decoded image is an *image.Gray or an *image.YCbCr whose pixels
// alias the Decoder's buffers until its next Decode. Its chroma planes
// are subsampled as in the file (as image/jpeg returns them), each block
// of every component decoding to the same number of samples; with
// Decoder.FullChroma, at reduced scale each chroma block decodes to up to
// 8x8 samples, as many as keep the chroma's resolution up to the luma's:
// a 4:2:0, 4:2:2 or 4:4:0 file decoded at 1/2, 1/4 or 1/8 gives 4:4:4
// planes, whose chroma has the same detail as a full decode's, and 4:1:1
// at 1/2 gives 4:2:2.
package jpegscale
