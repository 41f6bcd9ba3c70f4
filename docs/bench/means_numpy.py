#!/usr/bin/python3
"""The means of SPD matrices of covpipe's spd package in NumPy/SciPy, for speed comparisons.

It computes, on the matrices of a .npy file of shape (n, d, d) (covpipe
describe's descriptors.npy), the six means of spd with equal weights, each
from the same start, to the same certificate and tolerance as spd's
defaults (tol 1e-10), as a NumPy user would write them: batched
numpy.linalg.eigh, cholesky and solve over the stack, the stack split over
--threads worker threads (NumPy's linear algebra releases the GIL), BLAS
threads bounded to 1 per worker by threadpoolctl.

  airm           the Karcher mean: from the arithmetic mean, the plain
                 Riemannian gradient step M <- L expm(J) L^T with the
                 Cholesky factor M = L L^T and J = sum_i w_i logm(L^-1 X_i
                 L^-T), until ||J||_F < tol (spd.KarcherMean's certificate,
                 without its Anderson mixing).
  log-euclidean  expm(sum_i w_i logm(X_i)).
  stein          the Stein (log-det) mean: from the arithmetic mean,
                 X <- (sum_i w_i ((X + X_i)/2)^-1)^-1 until the residual
                 ||L^T G L - I||_F < tol, X = L L^T (spd.SteinMean's
                 certificate, without its acceleration).
  wasserstein    the Bures-Wasserstein barycentre: from the arithmetic mean,
                 M <- T M T with T = L^-T S L^-1, S = sum_i w_i (L^T X_i
                 L)^(1/2), until 2 ||L^-T (S - L^T L)||_F / ||L||_F < tol
                 (spd.WassersteinMean's certificate, without its Anderson
                 mixing).
  harmonic       (sum_i w_i X_i^-1)^-1, the inverses by numpy.linalg.inv (LU).
  euclid         sum_i w_i X_i.

Each mean prints one line in the format of `go test -bench`, so that
docs/bench/sitting.sh's numpy-means group and doctables read it beside
BenchmarkMean:

  BenchmarkMeanNumPy/NAME 1 WALL ns/op CPU cpu-ns/op ITERS iters EVALS evals CERT certificate-x1e12

with the wall and process CPU time of the best of --repeat runs (the
loading excluded), the updates, the passes over the matrices (each a
matrix function or factorisation per matrix) and the certificate times
1e12. An iterative mean that reaches --maxiter (100; pyRiemann's 50) is
reported with its last certificate and a line "# NAME: not converged".

Dependencies (Debian; PyPI is not needed): python3-numpy python3-scipy
(threadpoolctl comes with python3-sklearn); run with /usr/bin/python3.
    /usr/bin/python3 docs/bench/means_numpy.py --npy DIR/descriptors.npy --threads 2
It is a benchmark, not a test: CI does not run it. See docs/bench/README.md.
"""
import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits


class Stack:
    """The matrices, their weights and the worker threads."""

    def __init__(self, x, threads):
        self.x = x
        self.n, self.d, _ = x.shape
        self.w = np.full(self.n, 1.0 / self.n)
        self.threads = max(1, threads)
        self.pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None
        self.parts = np.array_split(np.arange(self.n), self.threads)
        self.evals = 0

    def map_sum(self, fn):
        """sum over the parts of fn(indices), in order."""
        self.evals += 1
        if self.pool is None:
            return fn(self.parts[0])
        return sum(self.pool.map(fn, self.parts))


def sym_fn(a, f):
    """V f(lambda) V^T over a stack (or one matrix) by eigh."""
    lam, v = np.linalg.eigh(a)
    return (v * f(lam)[..., None, :]) @ np.swapaxes(v, -1, -2)


def weighted(s, idx, terms):
    return np.tensordot(s.w[idx], terms, axes=(0, 0))


def arithmetic(s):
    return weighted(s, slice(None), s.x)


def karcher(s, tol, maxiter):
    r = np.linalg.cholesky(s.x)
    l = np.linalg.cholesky(arithmetic(s))

    def grad(idx):
        z = scipy.linalg.solve_triangular(l, r[idx].transpose(1, 0, 2).reshape(s.d, -1), lower=True)
        z = z.reshape(s.d, len(idx), s.d).transpose(1, 0, 2)
        y = z @ np.swapaxes(z, -1, -2)
        return weighted(s, idx, sym_fn(y, np.log))

    for it in range(maxiter + 1):
        j = s.map_sum(grad)
        g = np.linalg.norm(j)
        if g < tol or it == maxiter:
            return l @ l.T, it, g, g < tol
        l = l @ np.linalg.cholesky(sym_fn((j + j.T) / 2, np.exp))


def log_euclidean(s, tol, maxiter):
    j = s.map_sum(lambda idx: weighted(s, idx, sym_fn(s.x[idx], np.log)))
    m = sym_fn((j + j.T) / 2, np.exp)
    g = np.linalg.norm(j - sym_fn(m, np.log))
    return m, 0, g, True


def stein(s, tol, maxiter):
    m = arithmetic(s)
    eye = np.eye(s.d)
    for it in range(maxiter + 1):
        g = s.map_sum(lambda idx: weighted(s, idx, np.linalg.inv(0.5 * (s.x[idx] + m))))
        l = np.linalg.cholesky(m)
        res = np.linalg.norm(l.T @ g @ l - eye)
        if res < tol or it == maxiter:
            return m, it, res, res < tol
        m = np.linalg.inv((g + g.T) / 2)
        m = (m + m.T) / 2


def wasserstein(s, tol, maxiter):
    m = arithmetic(s)
    for it in range(maxiter + 1):
        l = np.linalg.cholesky(m)
        sq = s.map_sum(lambda idx: weighted(s, idx, sym_fn(l.T @ s.x[idx] @ l, np.sqrt)))
        sq = (sq + sq.T) / 2
        v = scipy.linalg.solve_triangular(l, sq - l.T @ l, lower=True, trans="T")
        g = 2 * np.linalg.norm(v) / np.linalg.norm(l)
        if g < tol or it == maxiter:
            return m, it, g, g < tol
        b = scipy.linalg.solve_triangular(l, sq.T, lower=True, trans="T").T  # S L^-1
        m = b.T @ b


def harmonic(s, tol, maxiter):
    eye = np.eye(s.d)
    h = s.map_sum(lambda idx: weighted(s, idx, np.linalg.inv(s.x[idx])))
    h = (h + h.T) / 2
    m = np.linalg.inv(h)
    m = (m + m.T) / 2
    l = np.linalg.cholesky(m)
    return m, 0, np.linalg.norm(l.T @ h @ l - eye), True


def euclid(s, tol, maxiter):
    m = s.map_sum(lambda idx: weighted(s, idx, s.x[idx]))
    l = np.linalg.cholesky(m)
    y = scipy.linalg.solve_triangular(l, scipy.linalg.solve_triangular(l, m, lower=True).T, lower=True)
    return m, 0, np.linalg.norm(y - np.eye(s.d)), True


MEANS = {
    "airm": karcher,
    "log-euclidean": log_euclidean,
    "stein": stein,
    "wasserstein": wasserstein,
    "harmonic": harmonic,
    "euclid": euclid,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--npy", required=True, help="matrices, shape (n, d, d)")
    ap.add_argument("--threads", type=int, default=2, help="worker threads (0: all cores)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each mean; the best is reported")
    ap.add_argument("--tol", type=float, default=1e-10)
    ap.add_argument("--maxiter", type=int, default=100)
    ap.add_argument("--means", default=",".join(MEANS), help="comma-separated names")
    a = ap.parse_args()
    threads = a.threads or os.cpu_count()
    x = np.load(a.npy)
    x = (x + np.swapaxes(x, -1, -2)) / 2
    print(f"# {x.shape[0]} matrices of {x.shape[1]}x{x.shape[2]} from {a.npy}; NumPy {np.__version__}, SciPy {scipy.__version__}, {threads} threads")
    with threadpool_limits(limits=1):
        for name in a.means.split(","):
            best = None
            for _ in range(a.repeat):
                s = Stack(x, threads)
                w0, c0 = time.perf_counter(), time.process_time()
                m, it, cert, ok = MEANS[name](s, a.tol, a.maxiter)
                wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                if best is None or wall < best[0]:
                    best = (wall, cpu, it, s.evals, cert, ok)
            wall, cpu, it, evals, cert, ok = best
            if not ok:
                print(f"# {name}: not converged")
            print(f"BenchmarkMeanNumPy/{name} 1 {wall * 1e9:.0f} ns/op {cpu * 1e9:.0f} cpu-ns/op "
                  f"{it} iters {evals} evals {cert * 1e12:.4g} certificate-x1e12", flush=True)


if __name__ == "__main__":
    main()
