"""covpipe's SPD geometry against closed forms on diagonal matrices."""

import numpy as np
import pytest

import covpipe


def diagonals(rows):
    return np.ascontiguousarray([np.diag(r) for r in rows], dtype=np.float64)


A_DIAG = [[1.0, 4.0, 0.5], [9.0, 1.0, 2.0]]
B_DIAG = [[2.0, 2.0, 2.0], [0.25, 16.0, 8.0], [1.0, 1.0, 1.0]]


def closed_form(metric, a, b):
    a, b = np.asarray(a), np.asarray(b)
    if metric == "airm":
        return np.sqrt(np.sum(np.log(b / a) ** 2))
    if metric == "log-euclidean":
        return np.sqrt(np.sum((np.log(a) - np.log(b)) ** 2))
    if metric == "thompson":
        return np.max(np.abs(np.log(a / b)))
    return np.sum(np.log((a + b) / 2) - 0.5 * np.log(a * b))  # stein: S itself


@pytest.mark.parametrize("metric", ["airm", "stein", "log-euclidean", "thompson"])
def test_distance_closed_forms(metric):
    got = covpipe.distance(diagonals(A_DIAG), diagonals(B_DIAG), metric=metric)
    want = np.array([[closed_form(metric, a, b) for b in B_DIAG] for a in A_DIAG])
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_distance_shapes():
    A, B = diagonals(A_DIAG), diagonals(B_DIAG)
    assert isinstance(covpipe.distance(A[0], B[1]), float)
    assert covpipe.distance(A, B[1]).shape == (2,)
    assert covpipe.distance(A[0], B).shape == (3,)
    D = covpipe.distance(B, metric="airm")
    assert D.shape == (3, 3) and np.all(np.diag(D) == 0)
    np.testing.assert_allclose(D, D.T, rtol=1e-14)


def test_stein_kernel_is_exp_of_divergence():
    A, B = diagonals(A_DIAG), diagonals(B_DIAG)
    K = covpipe.stein_kernel(A, B, sigma=1)
    S = covpipe.distance(A, B, metric="stein")
    np.testing.assert_allclose(K, np.exp(-S), rtol=1e-15)  # Go's exp, not NumPy's
    with pytest.raises(ValueError, match="Theorem 1"):
        covpipe.stein_kernel(A, B, sigma=0.7)
    assert covpipe.stein_kernel(A, B, sigma=0.7, pseudo=True).shape == (2, 3)


@pytest.mark.parametrize("metric", ["airm", "stein", "log-euclidean"])
def test_mean_of_diagonals(metric):
    rows = np.array(B_DIAG)
    M = covpipe.mean(diagonals(rows), metric=metric)
    if metric == "stein":
        # Each eigenvalue x solves Σ_i x/(x + x_i) = n/2.
        x = np.diag(M)
        np.testing.assert_allclose(np.sum(x / (x + rows), axis=0), len(rows) / 2, rtol=1e-9)
    else:
        np.testing.assert_allclose(M, np.diag(np.exp(np.log(rows).mean(axis=0))), rtol=1e-9)


def test_mean_refuses_thompson():
    with pytest.raises(ValueError, match="no mean for metric thompson"):
        covpipe.mean(diagonals(B_DIAG), metric="thompson")


def test_mean_warns_when_not_converged():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 5, 5))
    X = np.ascontiguousarray(A @ A.transpose(0, 2, 1) + 1e-3 * np.eye(5))
    with pytest.warns(RuntimeWarning, match="no convergence"):
        covpipe.mean(X, metric="airm", tol=1e-300, max_iter=1)


def bad_inputs():
    good = diagonals(B_DIAG)
    nan = good.copy()
    nan[1, 0, 0] = np.nan
    neg = good.copy()
    neg[2, 1, 1] = -1
    asym = good.copy()
    asym[0, 0, 1] = 1
    return [
        ("NaN", nan, "matrix 1: .*non-finite"),
        ("not positive definite", neg, "matrix 2: .*not positive definite"),
        ("not symmetric", asym, "matrix 0: .*not symmetric"),
        ("float32", good.astype(np.float32), "dtype float32"),
        ("wrong shape", good[:, :, :2].copy(), r"want \(n, d, d\)"),
        ("not contiguous", np.asfortranarray(good), "C-contiguous"),
        ("a view", diagonals(B_DIAG * 2)[::2], "C-contiguous"),
        ("empty", good[:0], "at least one matrix"),
        ("strings", [[["a"]]], "dtype <U1"),
    ]


@pytest.mark.parametrize("name,X,match", bad_inputs(), ids=[b[0] for b in bad_inputs()])
def test_bad_input_raises_value_error(name, X, match):
    with pytest.raises(ValueError, match=match):
        covpipe.distance(X, metric="airm")


def test_unknown_metric():
    with pytest.raises(ValueError, match='unknown metric "cosine"'):
        covpipe.distance(diagonals(B_DIAG), metric="cosine")


def test_inputs_left_unchanged():
    # The library symmetrises its copy, never the caller's array.
    X = diagonals(B_DIAG)
    X[0, 0, 1], X[0, 1, 0] = 1e-12, 0.0
    before = X.copy()
    covpipe.distance(X, metric="stein")
    np.testing.assert_array_equal(X, before)
