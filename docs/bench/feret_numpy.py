#!/usr/bin/python3
"""covpipe's FERET RSR pipeline in NumPy/SciPy/scikit-learn, for speed comparisons.

What it computes (Harandi et al., ECCV 2012, Sec. 5.1 and Table 2), exactly as

    covpipe run CONFIG --data DATAROOT --methods rsr --no-cache

does with CONFIG a copy of configs/feret.yaml whose rsr method has the fixed
parameters `sigma: 0.5` and `lambda: 0.1` (no lists, no lambda_ratio), and
the shipped data section (dataset feret:feret-b-32, features face, Gabor
border zero, ridge 1e-4 of kind trace-ridge):

1. Data: the 32x32 8-bit grey FERET 'b' crops SSSSSxx.png of DATA (the folder
   feret-b-32), grey values v/255 (package imageio). Training poses ba, bj,
   bk (600 faces); test poses bg, bf, be, bd (200 faces each), scored
   separately and averaged.
2. Features (package features, preset face): per pixel [I, x, y, |G_00| ...
   |G_47|], x the column and y the row index from 0, Gabor plane v*8+u
   (package gabor): for scale v = 0..4 and orientation u = 0..7, with
   k_v = 2^(-(v-1)/2), theta_u = pi*u/8, envelope s.d. sigma_v = 2*pi/k_v,
       psi(x, y) = k_v^2/(4 pi^2) exp(-k_v^2 (x^2+y^2)/(8 pi^2))
                   * (exp(i k_v (x cos theta_u + y sin theta_u)) - exp(-2 pi^2)),
   sampled on |x|, |y| <= ceil(8.5 sigma_v) (38 ... 152), and |G| the
   magnitude of the zero-padded 'same' convolution of the image with psi
   (MATLAB's conv2(I, psi, 'same')): by default scipy.signal.fftconvolve over
   the stacked images, its 'full' output cropped to the centre as
   mode='same' does; with --convolve direct, scipy.signal.convolve2d(I, psi,
   mode='same') per image and wavelet, the call-for-call port of conv2. Only taps with
   |x|, |y| < 32 can reach an output pixel of a 32x32 image, so the kernels
   are cropped to those (exact, and faster). The descriptors agree with
   `covpipe describe --features face` to ~1e-17 relative.
3. Covariance (package covariance, region whole image): the unbiased
   C = 1/(n-1) sum (z - mu)(z - mu)^T over the n = 1024 pixels (43x43), plus
   the trace ridge C + 1e-4 * |tr C|/d * I (d = 43).
4. Stein divergence S(X,Y) = log det((X+Y)/2) - (log det X + log det Y)/2,
   log-determinants from batched Cholesky factors (numpy.linalg.cholesky on
   stacked matrices); kernel k = exp(-sigma S), sigma = 0.5, k(X,X) = 1.
5. Kernel sparse coding (package rsr, Eqns. 7-8) of each test face x against
   the 600 training faces D, with no 1/2 or 1/N factors:
       min_a  1 - 2 k(x,D)^T a + a^T K a + lambda ||a||_1,   lambda = 0.1,
   K the training Gram matrix. With K = L L^T (Cholesky) the data term is
   ||L^{-1} k - L^T a||^2 + const, so scikit-learn's Lasso (which minimises
   1/(2 n) ||y - X w||^2 + alpha ||w||_1) solves it with design L^T, target
   L^{-1} k, n = 600 and alpha = lambda / (2 n); its Gram matrix is K itself.
   K being numerically singular, the minimiser need not be unique: solvers
   can reach the same objective with codes that split weight differently
   between classes, which changes a few class residuals (with covpipe, one
   test face of 800).
6. Classification (Eqn. 9, rule residual): class c scores
   eps_c = 1 - 2 k_c^T a_c + a_c^T K_cc a_c over its own atoms; the smallest
   wins (ties: the lowest subject id).

Dependencies (Debian; PyPI is not needed):
    apt-get install -y python3-numpy python3-scipy python3-sklearn python3-pil
and run it with that interpreter, /usr/bin/python3 (a pyenv or venv python3
first on PATH will not see Debian's packages):
    /usr/bin/python3 docs/bench/feret_numpy.py --data /path/to/datasets/feret-b-32 --threads 2
--threads bounds the BLAS/OpenMP threads (threadpoolctl) and the script's
own worker threads (Gabor, Stein and coding chunks); 0 leaves BLAS at its
default (all cores). The script prints per-pose accuracies and the time of
each stage; it writes nothing. It is a benchmark, not a test: CI does not
run it. See docs/bench/README.md.
"""
import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg
import scipy.signal
from PIL import Image
from sklearn.linear_model import Lasso
from threadpoolctl import threadpool_limits

TRAIN_POSES = ("ba", "bj", "bk")
TEST_POSES = ("bg", "bf", "be", "bd")
SIGMA, LAMBDA, RIDGE = 0.5, 0.1, 1e-4  # rsr sigma, lambda; data ridge (trace-ridge)
SUPPORT = 8.5  # gabor.DefaultSupport: half-width in envelope s.d.


def load(folder):
    """Returns grey images (N, h, w) in [0, 1], subject ids and poses, by file name."""
    names = sorted(f for f in os.listdir(folder) if f.endswith(".png"))
    imgs = np.stack([np.asarray(Image.open(os.path.join(folder, f)), dtype=np.float64) / 255 for f in names])
    return imgs, np.array([int(f[:5]) for f in names]), np.array([f[5:7] for f in names])


def gabor_kernels(h, w):
    """Returns the 40 complex wavelets (40, kh, kw), plane v*8+u, cropped to the
    taps |x| <= w-1, |y| <= h-1 that a 'same' convolution of an h x w image uses."""
    out = []
    for v in range(5):
        k = 2.0 ** (-(v - 1) / 2)
        r = int(np.ceil(SUPPORT * 2 * np.pi / k))  # R_v = ceil(8.5 sigma_v)
        x = np.arange(-min(r, w - 1), min(r, w - 1) + 1)[None, :]
        y = np.arange(-min(r, h - 1), min(r, h - 1) + 1)[:, None]
        env = k * k / (4 * np.pi ** 2) * np.exp(-k * k * (x * x + y * y) / (8 * np.pi ** 2))
        for u in range(8):
            th = np.pi * u / 8
            out.append(env * (np.exp(1j * k * (x * np.cos(th) + y * np.sin(th))) - np.exp(-2 * np.pi ** 2)))
    return np.stack(out)


def gabor_magnitudes(imgs, kernels, pool, chunk=25):
    """Returns |image * psi| (N, 40, h, w), zero-padded 'same' convolution."""
    h, w = imgs.shape[1:]
    r0, c0 = (kernels.shape[1] - 1) // 2, (kernels.shape[2] - 1) // 2

    def part(i):
        # The 'full' convolution, broadcast over images x kernels, cropped to
        # its centre: what mode='same' keeps (which would instead crop to the
        # first operand's shape, and so need the images repeated 40 times).
        g = scipy.signal.fftconvolve(imgs[i:i + chunk, None], kernels[None], mode="full", axes=(-2, -1))
        return np.abs(g[..., r0:r0 + h, c0:c0 + w])
    return np.concatenate(list(pool.map(part, range(0, len(imgs), chunk))))


def gabor_magnitudes_direct(imgs, kernels, pool):
    """Returns |image * psi| (N, 40, h, w) by scipy.signal.convolve2d(image, psi,
    mode='same') per image and wavelet: MATLAB's conv2(I, psi, 'same') call for
    call, as a per-image port of the authors' code would do it."""
    def part(i):
        return np.stack([np.abs(scipy.signal.convolve2d(imgs[i], k, mode="same")) for k in kernels])
    return np.stack(list(pool.map(part, range(len(imgs)))))


def covariances(imgs, mags, pool, chunk=50):
    """Returns the ridged 43x43 covariances of [I, x, y, |G|] per image."""
    n, h, w = imgs.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)

    def part(s):
        m = len(imgs[s:s + chunk])
        coords = np.broadcast_to(np.stack([xx, yy]), (m, 2, h, w))
        f = np.concatenate([imgs[s:s + chunk, None], coords, mags[s:s + chunk]], axis=1).reshape(m, -1, h * w)
        f -= f.mean(axis=2, keepdims=True)
        c = f @ f.transpose(0, 2, 1) / (h * w - 1)
        d = c.shape[1]
        tr = np.abs(np.trace(c, axis1=1, axis2=2))
        c[:, np.arange(d), np.arange(d)] += (RIDGE * tr / d)[:, None]
        return c
    return np.concatenate(list(pool.map(part, range(0, n, chunk))))


def logdet(m):
    """log det of stacked SPD matrices, from their Cholesky factors."""
    return 2 * np.log(np.diagonal(np.linalg.cholesky(m), axis1=-2, axis2=-1)).sum(-1)


def stein(a, la, b, lb, ia, ib, pool, chunk=500):
    """S(a[ia[p]], b[ib[p]]) for every pair p, in chunks on the pool."""
    def part(s):
        i, j = ia[s:s + chunk], ib[s:s + chunk]
        return logdet((a[i] + b[j]) / 2) - (la[i] + lb[j]) / 2
    s = np.concatenate(list(pool.map(part, range(0, len(ia), chunk))))
    return np.maximum(s, 0)  # round-off below 0 is clamped, as spd.Stein does


def code(K, L, kx, pool, chunk=50):
    """Kernel Lasso codes (Q, N) of the queries with kernel vectors kx (Q, N)."""
    n = K.shape[0]
    design = np.asfortranarray(L.T)
    target = scipy.linalg.solve_triangular(L, kx.T, lower=True)  # L^{-1} k, (N, Q)

    def part(s):
        m = Lasso(alpha=LAMBDA / (2 * n), fit_intercept=False, precompute=K, tol=1e-6, max_iter=100000)
        m.fit(design, target[:, s:s + chunk])
        return np.atleast_2d(m.coef_)
    return np.concatenate(list(pool.map(part, range(0, kx.shape[0], chunk))))


def classify(codes, kx, K, labels):
    """Eqn. 9: the label of the smallest class residual per query."""
    classes = np.unique(labels)
    eps = np.empty((codes.shape[0], len(classes)))
    for c, lab in enumerate(classes):
        m = np.flatnonzero(labels == lab)
        a = codes[:, m]
        eps[:, c] = 1 - 2 * (a * kx[:, m]).sum(1) + np.einsum("qi,ij,qj->q", a, K[np.ix_(m, m)], a)
    return classes[np.argmin(eps, axis=1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="the feret-b-32 folder of 32x32 SSSSSxx.png faces")
    ap.add_argument("--threads", type=int, default=0,
                    help="BLAS threads and worker threads (0: BLAS default, workers = CPU count)")
    ap.add_argument("--convolve", choices=("fft", "direct"), default="fft",
                    help="Gabor convolution: fft (scipy.signal.fftconvolve over the stacked images) "
                         "or direct (scipy.signal.convolve2d per image and wavelet, as MATLAB's conv2)")
    args = ap.parse_args()
    workers = args.threads or os.cpu_count()
    with threadpool_limits(limits=args.threads or None), ThreadPoolExecutor(workers) as pool:
        run(args.data, pool, workers, args.convolve)


def run(folder, pool, workers, convolve):
    times = {}
    t0 = last = time.perf_counter()

    def stage(name):
        nonlocal last
        now = time.perf_counter()
        times[name] = now - last
        last = now

    imgs, subjects, poses = load(folder)
    stage("load")
    gabor = gabor_magnitudes_direct if convolve == "direct" else gabor_magnitudes
    mags = gabor(imgs, gabor_kernels(*imgs.shape[1:]), pool)
    stage("gabor")
    covs = covariances(imgs, mags, pool)
    ld = logdet(covs)
    stage("covariances")

    tr = np.flatnonzero(np.isin(poses, TRAIN_POSES))
    te = np.flatnonzero(np.isin(poses, TEST_POSES))
    n = len(tr)
    iu, ju = np.triu_indices(n, 1)
    s = stein(covs, ld, covs, ld, tr[iu], tr[ju], pool)
    K = np.eye(n)
    K[iu, ju] = K[ju, iu] = np.exp(-SIGMA * s)
    qi, qj = np.repeat(te, n), np.tile(tr, len(te))
    kx = np.exp(-SIGMA * stein(covs, ld, covs, ld, qi, qj, pool)).reshape(len(te), n)
    stage("gram")

    # K is positive definite (Theorem 1) but numerically singular here (its
    # smallest eigenvalues are ~1e-15 either side of 0): a tiny jitter.
    L = np.linalg.cholesky(K + 1e-10 * np.eye(n))
    pred = classify(code(K, L, kx, pool), kx, K, subjects[tr])
    stage("coding")
    total = time.perf_counter() - t0

    print(f"FERET RSR, NumPy {np.__version__}: {n} training faces ({', '.join(TRAIN_POSES)}), "
          f"{len(te)} test faces; sigma = {SIGMA}, lambda = {LAMBDA}, trace ridge {RIDGE}; "
          f"{convolve} convolution; {workers} worker threads")
    accs = []
    for p in TEST_POSES:
        m = poses[te] == p
        accs.append(100 * np.mean(pred[m] == subjects[te][m]))
        print(f"  {p}: {accs[-1]:6.2f} %  ({int(np.sum(pred[m] == subjects[te][m]))}/{int(m.sum())})")
    print(f"  average: {np.mean(accs):.2f} %")
    print("time (s): " + ", ".join(f"{k} {v:.2f}" for k, v in times.items()) + f"; total {total:.2f}")


if __name__ == "__main__":
    main()
