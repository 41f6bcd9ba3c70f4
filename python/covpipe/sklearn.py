"""scikit-learn estimators of covpipe's methods, made from the Go library's
registry: one class per method type (covpipe.registry()), its __init__
taking the type's declared parameters, so that a method added to the Go
registry appears here without a class written for it.

    from covpipe.sklearn import SteinSRC
    clf = SteinSRC(sigma=[0.5, 1], lambda_ratio=0.1).fit(X, y)   # X (n, d, d)
    clf.predict(X_test)

Parameters are the keys of the method's entry in an experiment file (see
covpipe's README), "lambda" spelt lambda_; None leaves the method's own
default (the class documentation says which). A list of numbers is a list
of candidates, which the method chooses among by `folds`-fold
cross-validation inside the training set, as covpipe run does; GridSearchCV
over single values chooses outside. Common to all: folds (None: 3), seed
(the folds' and the SVM calibration's), workers (goroutines, 0: all cores;
the results do not depend on it), and atoms for methods that make a
dictionary of the training items (SparseCoder).

Classes have friendly names for the known types (SteinSRC for rsr, LogESR,
SteinSVC, NearestNeighbour, MDM, RLPP, TSC, SparseCoder for codes, ...);
another type gets a name derived from its own (tangent-space:
TangentSpace). by_method maps type names to classes.
"""

import keyword
import os
import re
import shutil

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from . import _abi
from ._core import Model, fit, load_model, registry

FRIENDLY = {
    "rsr": "SteinSRC",
    "logE-SR": "LogESR",
    "stein-svm": "SteinSVC",
    "nn": "NearestNeighbour",
    "mdm": "MDM",
    "rlpp": "RLPP",
    "tsc": "TSC",
    "codes": "SparseCoder",
    "pca-src": "PCASRC",
    "gsr": "GaborSRC",
    "sdalf": "SDALF",
    "hpe": "HPE",
}

_COMMON = ("folds", "seed", "workers")


def class_name(method):
    """The class name of a method type: its friendly name, or its name's
    words capitalised (tangent-space: TangentSpace)."""
    if method in FRIENDLY:
        return FRIENDLY[method]
    words = [w for w in re.split(r"[^0-9A-Za-z]+", method) if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "Method"
    return name if name[0].isalpha() else "M" + name


def param_name(key):
    """The Python name of a parameter key: lambda is lambda_, '-' is '_'."""
    name = re.sub(r"[^0-9A-Za-z_]", "_", key)
    if keyword.iskeyword(name) or not name.isidentifier() or name in _COMMON or name == "atoms":
        name += "_"
    return name


def _value(kind, v, name):
    """v as the JSON value of a parameter of kind (registry kinds)."""
    if kind == "list":
        if np.ndim(v) == 0:
            return float(v)
        return [float(x) for x in np.asarray(v, dtype=float).ravel()]
    if kind == "number":
        return float(v)
    if kind == "int":
        if int(v) != v:
            raise ValueError("%s: %r is not an integer" % (name, v))
        return int(v)
    if kind == "bool":
        return bool(v)
    return str(v)


class CovpipeClassifier(ClassifierMixin, BaseEstimator):
    """The base of the generated estimators: fit(X, y) on matrices X of
    shape (n, d, d), float64, C-contiguous (a view or another dtype is
    refused with a ValueError saying how to convert it)."""

    _method = None
    _keys = {}  # Python name -> (registry key, kind)
    _info = {}

    def _options(self):
        params = {}
        for name, (key, kind) in self._keys.items():
            v = getattr(self, name)
            if v is not None:
                params[key] = _value(kind, v, name)
        return params

    def fit(self, X, y, extraction=None, rows=None):
        """Fits the method on the matrices X labelled by y (model.FitOutput,
        as `covpipe fit` on a describe folder). extraction and rows are
        covpipe.describe(meta=True)'s meta and rows, which let the saved
        model describe images itself (covpipe predict on images)."""
        X = _abi.matrices(X, "X")
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(X):
            raise ValueError("y: shape %s, want (%d,): a label per matrix" % (y.shape, len(X)))
        self.classes_ = np.unique(y)
        names = [str(c) for c in self.classes_]
        if len(set(names)) != len(names):
            raise ValueError("y: classes %r are not distinct as strings, which name covpipe's classes" % (list(self.classes_),))
        atoms = getattr(self, "atoms", None) or 0
        self.model_ = fit(X, [str(v) for v in y], self._method, params=self._options(), seed=self.seed,
                          folds=self.folds or 0, atoms=atoms, workers=self.workers, extraction=extraction, rows=rows)
        self._index_classes()
        return self

    def _index_classes(self):
        # The model's classes are the labels as strings, sorted as strings;
        # classes_ are sorted as NumPy sorts them.
        pos = {str(c): i for i, c in enumerate(self.classes_)}
        self._to_classes = np.array([pos[c] for c in self.model_.classes] + [-1])
        self.chosen_ = self.model_.chosen
        self.n_features_in_ = self.model_.dim

    def _answers(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict(_abi.matrices(X, "X"), workers=self.workers)

    def _indices(self, labels):
        model_pos = {c: i for i, c in enumerate(self.model_.classes)}
        return self._to_classes[[model_pos.get(l, -1) for l in labels]]

    def predict(self, X):
        """The predicted class of each matrix of X."""
        return self.classes_[self._indices(self._answers(X).label)]

    def predict_scores(self, X):
        """covpipe's answers (covpipe.Predictions): the class and the class
        ranked second with their scores in [0, 1], and the SCI of SRC
        methods (see covpipe's model documentation, "Scores")."""
        return self._answers(X)

    def _binary_scores(self):
        return self._info.get("scores", False) and (not hasattr(self, "classes_") or len(self.classes_) == 2)

    @available_if(_binary_scores)
    def predict_proba(self, X):
        """Class probabilities of a two-class problem, from covpipe's
        scores of the two classes (the SVM's Platt probabilities, the SRC's
        shares of explained energy, nn's distance ratios). With more
        classes covpipe gives the scores of the first two only, and
        predict_scores gives them."""
        a = self._answers(X)
        if len(self.classes_) != 2:
            raise AttributeError("predict_proba: covpipe scores the first two of %d classes only: use predict_scores" % len(self.classes_))
        p = np.zeros((len(a.score), 2))
        first, second = self._indices(a.label), self._indices(a.second)
        rows = np.arange(len(p))
        p[rows, first] = a.score
        ok = second >= 0
        p[rows[ok], second[ok]] = a.second_score[ok]
        return p

    def _transforms(self):
        if hasattr(self, "model_"):
            return self.model_.transforms
        return self._info.get("dictionary", False)

    @available_if(_transforms)
    def transform(self, X):
        """The feature vectors of the matrices of X (a codes model's sparse
        codes against its dictionary), a row each."""
        check_is_fitted(self, "model_")
        return self.model_.transform(_abi.matrices(X, "X"), workers=self.workers)

    def save(self, dir, overwrite=False):
        """Writes the fitted model into the folder dir, which `covpipe
        predict --model DIR` and covpipe.load_model read."""
        check_is_fitted(self, "model_")
        if overwrite and os.path.isdir(dir):
            shutil.rmtree(dir)
        self.model_.save(dir)

    def __getstate__(self):
        state = dict(self.__dict__)
        if "model_" in state:
            state["model_"] = state["model_"].to_bytes()
        return state

    def __setstate__(self, state):
        if "model_" in state:
            state = dict(state, model_=Model.from_bytes(state["model_"]))
        self.__dict__.update(state)

    def _more_tags(self):
        return {"X_types": ["3darray"], "requires_y": True}


class CovpipeTransformer(TransformerMixin, CovpipeClassifier):
    """The base of the estimators of methods that give feature vectors."""


def _make_class(info):
    method = info["name"]
    keys = {}
    lines = [info["doc"] + ".", "", "covpipe method type %r, fitted through covpipe's Go library." % method, "",
             "Parameters", "----------"]
    for p in info["params"]:
        name = param_name(p["key"])
        keys[name] = (p["key"], p["kind"])
        default = p["default"] or "none"
        lines += ["%s : %s or None" % (name, "float or list of floats" if p["kind"] == "list" else p["kind"]),
                  "    %s (covpipe key %r; None: %s)" % (p["help"], p["key"], default)]
    lines += ["folds : int or None", "    cross-validation folds that choose among candidates (None: 3)",
              "seed : int", "    seed of the folds and of the SVM's calibration",
              "workers : int", "    goroutines (0: all cores); the results do not depend on it"]
    names = list(keys)
    extra = ["folds=None", "seed=0", "workers=0"]
    if info["dictionary"]:
        lines += ["atoms : int", "    the size of the dictionary made from the training items"]
        extra = ["atoms=8"] + extra
    args = ["%s=None" % n for n in names] + extra
    body = ["self.%s = %s" % (a.split("=")[0], a.split("=")[0]) for a in args]
    src = "def __init__(self, *, %s):\n    %s\n" % (", ".join(args), "\n    ".join(body))
    ns = {}
    exec(src, ns)
    name = class_name(method)
    base = CovpipeTransformer if info["dictionary"] else CovpipeClassifier
    cls = type(name, (base,), {"__init__": ns["__init__"], "__doc__": "\n".join(lines), "__module__": __name__,
                               "_method": method, "_keys": keys, "_info": info})
    cls.__init__.__qualname__ = name + ".__init__"
    return cls


by_method = {}
for _info in registry()["methods"]:
    _cls = _make_class(_info)
    by_method[_info["name"]] = _cls
    globals()[_cls.__name__] = _cls

__all__ = ["CovpipeClassifier", "CovpipeTransformer", "by_method", "class_name", "from_model"] + sorted(
    c.__name__ for c in by_method.values())


def from_model(dir):
    """The fitted estimator of the model folder dir (`covpipe fit`'s or
    save's), its classes_ the model's class names."""
    m = load_model(dir)
    cls = by_method.get(m.method)
    if cls is None:
        raise ValueError("%s: a model of method %s, which has no estimator class" % (dir, m.method))
    est = cls()
    est.classes_ = np.array(m.classes, dtype=object)
    est.model_ = m
    est._index_classes()
    return est

