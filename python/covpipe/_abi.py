"""The ctypes binding of libcovpipe, covpipe's C ABI (cmd/libcovpipe).

The library is loaded with ctypes.CDLL, which releases the GIL for the
whole of every foreign call: other Python threads run while Go computes,
and several threads may call into the library at once.

Every long call runs with a cancel token. Called from the main thread, the
foreign call runs on a helper thread while the main thread waits, so that
Ctrl-C (SIGINT) raises KeyboardInterrupt there at once; the wait then
cancels the token, which stops the Go call within one unit of its work
(a Gram row, a query, an image), and re-raises KeyboardInterrupt once it
has returned. From other threads the call runs in place; Token.cancel
cancels it from anywhere.
"""

import ctypes
import json
import os
import threading

import numpy as np

_P = ctypes.c_void_p
_I = ctypes.c_int64
_U = ctypes.c_size_t
_S = ctypes.c_char_p
_PS = ctypes.POINTER(ctypes.c_void_p)
_PU = ctypes.POINTER(ctypes.c_size_t)
_PI = ctypes.POINTER(ctypes.c_int64)

# Each exported function's argument types; all return an error message
# (char*, NULL on success) but covpipe_cancel_new and covpipe_free.
_SIGNATURES = {
    "covpipe_describe": [_U, _S, _S, _PU],
    "covpipe_distance": [_U, _S, _P, _I, _P, _I, _I, _I, _P],
    "covpipe_mean": [_U, _S, _P, _I, _I, _S, _P, _PS],
    "covpipe_stein_kernel": [_U, ctypes.c_double, _I, _P, _I, _P, _I, _I, _I, _P],
    "covpipe_cancel": [_U],
    "covpipe_release": [_U],
    "covpipe_registry": [_PS],
    "covpipe_method_spec": [_S, _S, _PS],
    "covpipe_fold_seed": [ctypes.c_uint64, _PI, _I, ctypes.POINTER(ctypes.c_uint64)],
    "covpipe_fit": [_U, _S, _P, _I, _I, _P, _I, _PU],
    "covpipe_predict": [_U, _U, _P, _I, _I, _P, _I, _S, _PU],
    "covpipe_predict_paths": [_U, _U, _S, _S, _PU],
    "covpipe_transform": [_U, _U, _P, _I, _I, _I, _PU],
    "covpipe_model_info": [_U, _PS],
    "covpipe_model_save": [_U, _S],
    "covpipe_model_load": [_S, _PU],
    "covpipe_result_shape": [_U, _S, _PI, _PI],
    "covpipe_result_copy": [_U, _S, _P, _I],
    "covpipe_result_text": [_U, _PS],
}


def _load():
    path = os.environ.get("COVPIPE_LIB") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "_lib", "libcovpipe.so")
    if not os.path.exists(path):
        raise ImportError(
            "covpipe: %s is missing: build it with `make -C python` (go build "
            "-buildmode=c-shared -o python/covpipe/_lib/libcovpipe.so ./cmd/libcovpipe)" % path)
    lib = ctypes.CDLL(path)
    for name, args in _SIGNATURES.items():
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = _P
    lib.covpipe_cancel_new.argtypes = []
    lib.covpipe_cancel_new.restype = _U
    lib.covpipe_free.argtypes = [_P]
    lib.covpipe_free.restype = None
    return lib


lib = _load()


class CovpipeError(RuntimeError):
    """An internal error of covpipe's library (a recovered panic)."""


class Cancelled(Exception):
    """A call cancelled through its Token from another thread."""


def _take_text(p):
    """Return the C string p as str and free it."""
    if not p:
        return None
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        lib.covpipe_free(p)


def check(p):
    """Raise the exception of the error message p, if any: ValueError for
    input covpipe refuses, OSError for files, Cancelled, CovpipeError."""
    msg = _take_text(p)
    if msg is None:
        return
    kind, _, text = msg.partition(":")
    if kind == "v":
        raise ValueError(text)
    if kind == "o":
        raise OSError(text)
    if kind == "c":
        raise Cancelled(text)
    raise CovpipeError(text)


def text_out(f, *args):
    """Call f(*args, &out) and return out's text."""
    out = ctypes.c_void_p()
    check(f(*args, ctypes.byref(out)))
    return _take_text(out.value)


def release(h):
    if h:
        check(lib.covpipe_release(h))


class _Handle:
    """A handle of the library's, released by close() or at the end of a
    with block."""

    def __init__(self, handle):
        self.handle = handle

    def close(self):
        h, self.handle = self.handle, 0
        release(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Token(_Handle):
    """A cancel token: cancel() stops the calls that run with it, from any
    thread (or a signal handler)."""

    def __init__(self):
        super().__init__(lib.covpipe_cancel_new())

    def cancel(self):
        check(lib.covpipe_cancel(self.handle))


def run(f, *args, token=None):
    """Call f(token, *args) and check its error. From the main thread the
    call runs on a helper thread, so that KeyboardInterrupt cancels it
    (see the module documentation)."""
    own = token is None
    tok = Token() if own else token
    try:
        if threading.current_thread() is not threading.main_thread():
            return check(f(tok.handle, *args))
        done = {}

        def target():
            try:
                done["err"] = f(tok.handle, *args)
            except BaseException as e:  # an argument ctypes cannot convert
                done["exc"] = e

        t = threading.Thread(target=target, name="covpipe-call", daemon=True)
        t.start()
        try:
            while t.is_alive():
                t.join(0.1)
        except KeyboardInterrupt:
            tok.cancel()
            t.join()
            _take_text(done.get("err"))
            raise
        if "exc" in done:
            raise done["exc"]
        check(done["err"])
    finally:
        if own:
            tok.close()


class Result(_Handle):
    """A result handle: arrays copied out into NumPy, and a JSON text."""

    def array(self, name):
        key = name.encode()
        shape = (ctypes.c_int64 * 4)()
        ndim = ctypes.c_int64()
        check(lib.covpipe_result_shape(self.handle, key, shape, ctypes.byref(ndim)))
        out = np.empty(tuple(shape[: ndim.value]), dtype=np.float64)
        check(lib.covpipe_result_copy(self.handle, key, out.ctypes.data, out.size))
        return out

    def json(self):
        return json.loads(text_out(lib.covpipe_result_text, self.handle))



def _float64(X, name, shape):
    """X as a float64 C-contiguous aligned ndarray, without copying an
    ndarray: a list is converted; another dtype, or a view or transpose,
    is refused with a ValueError saying how to convert it. shape(X)
    returns the error of a wrong shape, None for a right one."""
    if not isinstance(X, np.ndarray):
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise ValueError("%s: not an array of numbers: %s" % (name, e)) from None
    if X.dtype != np.float64:
        raise ValueError("%s: dtype %s, want float64 (native byte order): pass %s.astype(np.float64)" % (name, X.dtype, name))
    bad = shape(X)
    if bad:
        raise ValueError("%s: shape %s, %s" % (name, X.shape, bad))
    if not X.flags.c_contiguous or not X.flags.aligned:
        raise ValueError("%s: not a C-contiguous aligned array (a view or a transpose): pass np.ascontiguousarray(%s)" % (name, name))
    return X


def matrices(X, name="X"):
    """Return X as an (n, d, d) float64 C-contiguous array without copying
    an ndarray (_float64)."""
    def shape(X):
        if X.ndim != 3 or X.shape[1] != X.shape[2]:
            return "want (n, d, d): n square d×d matrices"
        if X.shape[0] == 0 or X.shape[1] == 0:
            return "want at least one matrix of d >= 1"
    return _float64(X, name, shape)


def pointer(X):
    return ctypes.c_void_p(X.ctypes.data)


def vectors(V, n, name="vectors"):
    """Return V, the vectors of n items, as an (n, length) float64
    C-contiguous array without copying an ndarray (_float64), and its
    pointer and number of values for the library (None: a NULL pointer and
    0)."""
    if V is None:
        return None, None, 0
    V = _float64(V, name, lambda V: None if V.ndim == 2 and V.shape[0] == n and V.shape[1] > 0
                 else "want (%d, length): a vector per matrix" % n)
    return V, pointer(V), V.size


def dumps(v):
    return json.dumps(v).encode()
