"""covpipe's functions on SPD matrices, descriptors and models."""

import ctypes
import io
import json
import os
import tarfile
import tempfile
import warnings
from collections import namedtuple

import numpy as np

from . import _abi
from ._abi import lib

_registry = None


def registry():
    """Return the Go library's registry: {"version", "metrics", "methods":
    [{"name", "doc", "example", "params": [{"key", "help", "kind",
    "default"}], "scores", "costs", "probabilities", "vectors",
    "dictionary"}]}, the flags those of the type with its example's
    parameters (method_spec)."""
    global _registry
    if _registry is None:
        _registry = json.loads(_abi.text_out(lib.covpipe_registry))
    return _registry


def method_spec(method, params=None):
    """What method type method declares with params (an experiment file's
    method entry, {"metric": "airm"}): {"scores", "costs",
    "probabilities", "vectors", "dictionary"}, vectors the per-image
    vectors the method reads beside the descriptors, {"feature_spec",
    "step"} (describe(..., vectors=...) takes it), or None. Raises
    ValueError for parameters the method refuses, naming the key."""
    return json.loads(_abi.text_out(lib.covpipe_method_spec, method.encode(), _abi.dumps(_jsonable(params or {}))))


def _pair(A, B, names):
    """A and B as (n, d, d) arrays, and how to shape the (na, nb) result:
    a (d, d) matrix drops its axis."""
    single = []
    arrays = []
    for X, name in ((A, names[0]), (B, names[1])):
        if B is None and name == names[1]:
            X = arrays[0]
        else:
            X = np.asarray(X) if not isinstance(X, np.ndarray) else X
        if isinstance(X, np.ndarray) and X.ndim == 2:
            single.append(True)
            X = X[np.newaxis]
        else:
            single.append(False)
        arrays.append(_abi.matrices(X, name))
    a, b = arrays
    if a.shape[1] != b.shape[1]:
        raise ValueError("%s is of %d×%d matrices, %s of %d×%d" % (names[0], a.shape[1], a.shape[1], names[1], b.shape[1], b.shape[1]))

    def shape(out):
        if single[0] and single[1]:
            return float(out[0, 0])
        if single[0]:
            return out[0]
        if single[1]:
            return out[:, 0]
        return out

    return a, b, shape


def distance(A, B=None, metric="stein", workers=0, token=None):
    """Distances between SPD matrices: m(A_i, B_j) for A of shape (na, d, d)
    and B of shape (nb, d, d) as an (na, nb) array; a (d, d) argument drops
    its axis (two matrices give a float). B None is A. metric is a name of
    spd.ParseMetric: "airm" ("riemann"), "stein" (the divergence S of
    Eqn. 3 itself, not its square root), "log-euclidean", "thompson".
    Raises ValueError naming the matrix that is not SPD."""
    a, b, shape = _pair(A, B, ("A", "B"))
    out = np.empty((a.shape[0], b.shape[0]))
    _abi.run(lib.covpipe_distance, metric.encode(), _abi.pointer(a), a.shape[0], _abi.pointer(b), b.shape[0],
             a.shape[1], workers, out.ctypes.data, token=token)
    return shape(out)


def stein_kernel(X, Y=None, sigma=None, pseudo=False, workers=0, token=None):
    """The Stein kernel matrix K_ij = exp(-sigma S(X_i, Y_j)) (Eqn. 5) of X
    (n, d, d) against Y (m, d, d); Y None is X. sigma must be valid by
    Theorem 1 (1/2, 1, ..., (d-1)/2 or above (d-1)/2) unless pseudo; None
    is max(1/2, (d-1)/2), covpipe's default."""
    a, b, shape = _pair(X, Y, ("X", "Y"))
    if sigma is None:
        sigma = max(0.5, (a.shape[1] - 1) / 2)
    out = np.empty((a.shape[0], b.shape[0]))
    _abi.run(lib.covpipe_stein_kernel, float(sigma), int(bool(pseudo)), _abi.pointer(a), a.shape[0], _abi.pointer(b),
             b.shape[0], a.shape[1], workers, out.ctypes.data, token=token)
    return shape(out)


def mean(X, metric="airm", tol=0.0, max_iter=0, token=None):
    """The mean of the matrices X (n, d, d) under metric: "airm", the
    Karcher mean; "stein", the Stein (S-)mean; "log-euclidean",
    exp(mean(log X_i)). tol and max_iter bound the iterative means (0:
    covpipe's defaults); a mean that does not reach tol is returned with a
    RuntimeWarning."""
    a = _abi.matrices(X, "X")
    d = a.shape[1]
    out = np.empty((d, d))
    info = ctypes.c_void_p()
    _abi.run(lib.covpipe_mean, metric.encode(), _abi.pointer(a), a.shape[0], d,
             _abi.dumps({"tol": float(tol), "max_iter": int(max_iter)}), out.ctypes.data, ctypes.byref(info), token=token)
    text = json.loads(_abi._take_text(info.value))
    if text.get("warning"):
        warnings.warn("covpipe.mean: " + text["warning"], RuntimeWarning, stacklevel=2)
    return out


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _abi.dumps([os.fspath(p) for p in paths])


def fold_seed(seed, train):
    """The seed of the cross-validation folds that covpipe run, with the
    experiment seed seed, draws on the training set whose images are at
    positions train of the dataset's listing (the rows' indices of
    describe, one descriptor per image), which `covpipe fit --config`
    gives its model: fit(..., seed=fold_seed(config_seed, train)) chooses
    the parameters on the same folds as the command."""
    pos = np.ascontiguousarray(train, dtype=np.int64)
    if pos.ndim != 1:
        raise ValueError("train: shape %s, want (n,): image positions" % (pos.shape,))
    out = ctypes.c_uint64()
    _abi.check(lib.covpipe_fold_seed(int(seed), pos.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), len(pos),
                                     ctypes.byref(out)))
    return out.value


def _vector_spec(v):
    """v, a {"feature_spec", "step"} dict or a (features, step) pair, as
    the dict."""
    if isinstance(v, dict):
        if set(v) != {"feature_spec", "step"}:
            raise ValueError("vectors: %r: want {'feature_spec': FEATURES, 'step': STEP} or (FEATURES, STEP)" % (v,))
        return {"feature_spec": str(v["feature_spec"]), "step": int(v["step"])}
    try:
        features, step = v
    except (TypeError, ValueError):
        raise ValueError("vectors: %r: want {'feature_spec': FEATURES, 'step': STEP} or (FEATURES, STEP)" % (v,)) from None
    return {"feature_spec": str(features), "step": int(step)}


def describe(paths, features="texture", regions="whole", resize=None, ridge=None, ridge_kind=None, estimator=None,
             normalize=None, filter=None, jpeg_scale=None, gabor_border=None, seed=0, workers=0, skip_bad=False,
             max_memory=None, meta=False, vectors=None, token=None):
    """Covariance descriptors of images, as `covpipe describe` computes them
    (bit for bit its descriptors.npy). paths are image files, folders (of
    class folders: their names are the labels), .csv manifests or
    KIND:PATH specs, one or a list. The options are covpipe describe's
    flags of the same names: features ("texture", "face", "reid" or a list
    such as "I,Ix,Iy"), regions ("whole", "grid:RxC", "grid:RxC:crop",
    "blocks:N:S", ...), resize ("WxH"), ridge and ridge_kind, estimator ("scm", "lwf", "oas"),
    normalize ("none", "trace", "det", "corr"), ...

    vectors asks for a vector per image beside its descriptor: the planes
    of a feature set sampled every step pixels, {"feature_spec": "I",
    "step": 1} or ("I", 1), what the methods that read images' pixels
    (pca-src, gsr, sdalf, hpe) take (covpipe describe --vectors-features
    and --vectors-step; an estimator's vector_request() says which). They
    need one descriptor per image (regions "whole") and images of one size.

    Returns (X, rows): X of shape (n, d, d) float64, rows a list of dicts
    {"index", "input", "path", "label", "region": (x, y, w, h)}; with
    meta=True, (X, rows, meta), meta the extraction metadata (meta.json),
    which fit(X, y, extraction=meta) records in a model so that it can
    describe images itself; with vectors, the vectors V of shape (n,
    length) come last: (X, rows, V) or (X, rows, meta, V)."""
    opts = {"features": features, "regions": regions, "seed": int(seed), "workers": int(workers), "skip_bad": bool(skip_bad)}
    if vectors is not None:
        opts["vectors"] = _vector_spec(vectors)
    for key, v in (("resize", resize), ("ridge_kind", ridge_kind), ("estimator", estimator), ("normalize", normalize),
                   ("filter", filter), ("jpeg_scale", jpeg_scale), ("gabor_border", gabor_border), ("max_memory", max_memory)):
        if v is not None:
            opts[key] = v if isinstance(v, str) else "%dx%d" % tuple(v) if key == "resize" else v
    if ridge is not None:
        opts["ridge"] = float(ridge)
    res = ctypes.c_size_t()
    _abi.run(lib.covpipe_describe, _paths(paths), _abi.dumps(opts), ctypes.byref(res), token=token)
    with _abi.Result(res.value) as r:
        X = r.array("X")
        V = r.array("vectors") if vectors is not None else None
        text = r.json()
    rows = [dict(row, region=tuple(row["region"])) for row in text["rows"]]
    return (X, rows) + ((text["meta"],) if meta else ()) + ((V,) if vectors is not None else ())


Predictions = namedtuple("Predictions", "label second score second_score sci rejected rows probabilities costs")
Predictions.__doc__ = """A model's answers: label and second the class names of
the predicted class and of the class ranked second ("" for none), score and
second_score their scores in [0, 1] (NaN for methods that do not score), sci
the sparsity concentration index of SRC methods (NaN otherwise), rejected
whether the confidence is below the rejection threshold, rows the images
and regions answered for (predict_paths) or the matrices' indices; when
asked, probabilities and costs of shape (n, classes), each answer's
probability and cost of every class of Model.classes (model.Prediction's
Probabilities and Costs; None when not asked)."""


class Model:
    """A fitted covpipe model (package model): fit() makes one, load_model()
    reads one from a folder that `covpipe fit` or Model.save wrote. Safe to
    use from several threads at once."""

    def __init__(self, handle):
        self._handle = handle
        self._info = json.loads(_abi.text_out(lib.covpipe_model_info, handle))

    def __del__(self):
        h, self._handle = getattr(self, "_handle", 0), 0
        if h and _abi is not None and _abi.lib is not None:
            _abi.release(h)

    @property
    def method(self):
        return self._info["method"]

    @property
    def classes(self):
        """The class names, sorted as strings."""
        return list(self._info["classes"])

    @property
    def dim(self):
        return self._info["dim"]

    @property
    def chosen(self):
        """The parameters cross-validation chose."""
        return dict(self._info["chosen"])

    @property
    def transforms(self):
        """Whether transform() gives feature vectors (a codes model)."""
        return self._info["transforms"]

    @property
    def probabilities(self):
        """Whether answers can carry class probabilities (predict's
        probabilities=True): whether the method, a best model's chosen
        candidate, gives them (all but sdalf, hpe and nn with AIRM)."""
        return self._info["probabilities"]

    @property
    def costs(self):
        """Whether answers can carry class costs (predict's costs=True):
        rsr, logE-SR, stein-svm, mdm and nn but with AIRM, on one
        descriptor per image."""
        return self._info["costs"]

    @property
    def vectors(self):
        """The per-image vectors the model reads beside the descriptors,
        {"feature_spec", "step"}, or None."""
        v = self._info["vectors"]
        return dict(v) if v else None

    @property
    def extraction(self):
        """The extraction metadata of the training descriptors, or None."""
        return self._info["extraction"]

    @property
    def info(self):
        return json.loads(json.dumps(self._info))

    def _answers(self, res, extras):
        with _abi.Result(res) as r:
            a = {k: r.array(k) for k in ("label", "second", "score", "second_score", "sci", "rejected")}
            more = {k: r.array(k) if extras[k] else None for k in ("probabilities", "costs")}
            rows = r.json()
        names = np.array(self.classes + [""], dtype=object)
        return Predictions(label=names[a["label"].astype(np.int64)], second=names[a["second"].astype(np.int64)],
                           score=a["score"], second_score=a["second_score"], sci=a["sci"],
                           rejected=a["rejected"].astype(bool), rows=rows, **more)

    @staticmethod
    def _options(reject, workers, probabilities, costs):
        return {"reject": float(reject), "workers": int(workers), "probabilities": bool(probabilities), "costs": bool(costs)}

    def predict(self, X, vectors=None, reject=0.0, workers=0, probabilities=False, costs=False, token=None):
        """Answers for the matrices X (n, d, d), made as the training
        descriptors were (model.Model.PredictSet): a Predictions. A model
        that reads images' vectors (Model.vectors) takes their vectors too,
        an (n, length) array made as the training vectors were
        (describe(..., vectors=model.vectors)). probabilities and costs
        ask for each answer's class probabilities and costs (raising
        ValueError for a model whose method gives none: Model.probabilities,
        Model.costs)."""
        a = _abi.matrices(X, "X")
        V, vp, vlen = _abi.vectors(vectors, a.shape[0])
        opts = self._options(reject, workers, probabilities, costs)
        res = ctypes.c_size_t()
        _abi.run(lib.covpipe_predict, self._handle, _abi.pointer(a), a.shape[0], a.shape[1], vp, vlen,
                 _abi.dumps(opts), ctypes.byref(res), token=token)
        return self._answers(res.value, opts)

    def predict_paths(self, paths, reject=0.0, workers=0, probabilities=False, costs=False, token=None):
        """Describes the images of paths with the model's extraction options
        and answers for each, as `covpipe predict` does."""
        opts = self._options(reject, workers, probabilities, costs)
        res = ctypes.c_size_t()
        _abi.run(lib.covpipe_predict_paths, self._handle, _paths(paths), _abi.dumps(opts), ctypes.byref(res),
                 token=token)
        return self._answers(res.value, opts)

    def transform(self, X, workers=0, token=None):
        """The feature vectors of the matrices X, a row each (a codes
        model's sparse codes)."""
        a = _abi.matrices(X, "X")
        res = ctypes.c_size_t()
        _abi.run(lib.covpipe_transform, self._handle, _abi.pointer(a), a.shape[0], a.shape[1], int(workers),
                 ctypes.byref(res), token=token)
        with _abi.Result(res.value) as r:
            return r.array("X")

    def save(self, dir):
        """Writes the model into the folder dir, which `covpipe predict
        --model DIR` and load_model read."""
        _abi.check(lib.covpipe_model_save(self._handle, os.fspath(dir).encode()))

    def to_bytes(self):
        """The model's folder as the bytes of a tar archive."""
        with tempfile.TemporaryDirectory(prefix="covpipe-model-") as tmp:
            d = os.path.join(tmp, "model")
            self.save(d)
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w") as tar:
                for name in sorted(os.listdir(d)):
                    tar.add(os.path.join(d, name), arcname=name)
            return buf.getvalue()

    @classmethod
    def from_bytes(cls, data):
        """The model of the tar archive of a model folder (to_bytes)."""
        with tempfile.TemporaryDirectory(prefix="covpipe-model-") as tmp:
            d = os.path.join(tmp, "model")
            os.mkdir(d)
            with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
                for m in tar.getmembers():
                    if not m.isfile() or os.path.basename(m.name) != m.name:
                        raise ValueError("covpipe: a model archive holds only the files of its folder, not %r" % m.name)
                    with open(os.path.join(d, m.name), "wb") as f:
                        f.write(tar.extractfile(m).read())
            return load_model(d)

    def __reduce__(self):
        return (Model.from_bytes, (self.to_bytes(),))


def load_model(dir):
    """The model that the folder dir holds (`covpipe fit`'s or
    Model.save's), checked as covpipe predict checks it."""
    res = ctypes.c_size_t()
    _abi.check(lib.covpipe_model_load(os.fspath(dir).encode(), ctypes.byref(res)))
    return Model(res.value)


def _jsonable(v):
    """v with NumPy scalars and arrays as Python numbers and lists."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


def fit(X, labels, method, params=None, seed=0, folds=0, atoms=0, workers=0, extraction=None, rows=None,
        candidates=None, fusion=None, vectors=None, vector_spec=None, groups=None, groups_within=False, token=None):
    """Fits a model of method (a method type: rsr, nn, stein-svm, ...; best
    with candidates) on the matrices X (n, d, d) labelled by labels
    (strings), as `covpipe fit` fits one on a describe folder of the same
    descriptors (model.FitOutput): params as an experiment file's method
    entry ({"sigma": [0.5, 1]}: a list gives candidates chosen by
    folds-fold cross-validation inside the training set, drawn from seed).
    extraction is describe(meta=True)'s meta, rows its rows (fusion, a
    list of rules such as ["sum"], groups them by image). candidates are
    a best model's, [{"name", "method", "params"}], params {"rule":
    "one-se" or "max"}. vectors are the images' vectors (n, length) for a
    method that reads them, vector_spec what they are ({"feature_spec",
    "step"}; by default extraction's). groups, one per matrix (as
    scikit-learn's GroupKFold takes them), make the folds group folds: a
    group held out of every class, or, with groups_within, each class's
    groups dealt round the folds (an experiment file's folds_by and
    folds_within)."""
    a = _abi.matrices(X, "X")
    V, vp, vlen = _abi.vectors(vectors, a.shape[0])
    labels = [str(l) for l in labels]
    opts = {"method": method, "params": _jsonable(params or {}), "seed": int(seed), "folds": int(folds),
            "atoms": int(atoms), "workers": int(workers), "labels": labels}
    if extraction is not None:
        opts["extraction"] = extraction
    if rows is not None:
        opts["rows"] = [dict(r, region=list(r["region"])) for r in rows]
    if candidates is not None:
        opts["candidates"] = _jsonable(candidates)
    if fusion is not None:
        opts["fusion"] = list(fusion)
    if vector_spec is not None:
        opts["vectors"] = _vector_spec(vector_spec)
    if groups is not None:
        groups = np.asarray(groups)
        if groups.ndim != 1 or len(groups) != a.shape[0]:
            raise ValueError("groups: shape %s, want (%d,): a group per matrix" % (groups.shape, a.shape[0]))
        opts["groups"] = [str(g) for g in groups]
    if groups_within:
        opts["groups_within"] = True
    res = ctypes.c_size_t()
    _abi.run(lib.covpipe_fit, _abi.dumps(opts), _abi.pointer(a), a.shape[0], a.shape[1], vp, vlen, ctypes.byref(res),
             token=token)
    return Model(res.value)
