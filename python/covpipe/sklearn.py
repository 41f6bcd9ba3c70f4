"""scikit-learn estimators of covpipe's methods, made from the Go library's
registry: one class per method type (covpipe.registry()), its __init__
taking the type's declared parameters, so that a method added to the Go
registry appears here without a class written for it.

    from covpipe.sklearn import SteinSRC
    clf = SteinSRC(sigma=[0.5, 1], lambda_ratio=0.1).fit(X, y)   # X (n, d, d)
    clf.predict(X_test)

Parameters are the keys of the method's entry in an experiment file (see
covpipe's docs/experiments.md, "Methods"), "lambda" spelt lambda_; None leaves the method's own
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
from sklearn.utils.metaestimators import _BaseComposition, available_if
from sklearn.utils.validation import check_is_fitted

from . import _abi
from ._core import Model, fit, load_model, method_spec, registry

FRIENDLY = {
    "rsr": "SteinSRC",
    "logE-SR": "LogESR",
    "stein-svm": "SteinSVC",
    "nn": "NearestNeighbour",
    "mdm": "MDM",
    "fgmdm": "FgMDM",
    "tangent-space": "TangentSpace",
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
    refused with a ValueError saying how to convert it).

    What answers carry depends on the method and its parameters
    (covpipe.method_spec): predict_proba exists for methods that give
    class probabilities, decision_function for those that give class
    costs, transform for those that give feature vectors; before fit the
    parameters decide, after fit the fitted model (a best model's chosen
    candidate), so hasattr tells."""

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

    def _spec(self):
        """What the method declares with the current parameters
        (covpipe.method_spec); the registry's, for its example, when
        covpipe refuses the parameters (fit says why)."""
        try:
            return method_spec(self._method, self._options())
        except ValueError:
            return self._info

    def _declares(self, key):
        if hasattr(self, "model_"):
            return bool(self.model_.info[key])
        return bool(self._spec()[key])

    def vector_request(self):
        """The per-image vectors that the method reads beside the
        descriptors with these parameters, {"feature_spec", "step"}, which
        covpipe.describe(..., vectors=...) computes; None for a method that
        reads none. Raises ValueError for parameters covpipe refuses."""
        if hasattr(self, "model_"):
            return self.model_.vectors
        return method_spec(self._method, self._options())["vectors"]

    def _fit_options(self):
        """covpipe.fit's method, params, atoms (and candidates, fusion) for
        this estimator."""
        return {"method": self._method, "params": self._options(), "atoms": getattr(self, "atoms", None) or 0}

    def fit(self, X, y, vectors=None, extraction=None, rows=None, groups=None, groups_within=False):
        """Fits the method on the matrices X labelled by y (model.FitOutput,
        as `covpipe fit` on a describe folder). Methods that read images'
        pixels (pca-src, gsr, sdalf, hpe: vector_request() is not None)
        take vectors, the (n, length) vectors that covpipe.describe(...,
        vectors=est.vector_request()) gives beside X. extraction and rows
        are covpipe.describe(meta=True)'s meta and rows, which let the
        saved model describe images itself (covpipe predict on images).
        groups (one per matrix: FERET's pose, a person's tracklet) make
        the folds that choose among candidates group folds, as
        scikit-learn's GroupKFold: each group held out of every class, or
        with groups_within each class's groups dealt round the folds so
        that a class keeps some in training (covpipe fit --folds-by,
        --folds-within)."""
        X = _abi.matrices(X, "X")
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(X):
            raise ValueError("y: shape %s, want (%d,): a label per matrix" % (y.shape, len(X)))
        request = self.vector_request()
        if request is None and vectors is not None:
            raise ValueError("vectors: %s (method %s) reads no vectors beside the descriptors" % (type(self).__name__, self._method))
        if request is not None and vectors is None:
            raise ValueError(_vectors_missing(self, request))
        self.classes_ = np.unique(y)
        names = [str(c) for c in self.classes_]
        if len(set(names)) != len(names):
            raise ValueError("y: classes %r are not distinct as strings, which name covpipe's classes" % (list(self.classes_),))
        self.model_ = fit(X, [str(v) for v in y], seed=self.seed, folds=self.folds or 0, workers=self.workers,
                          extraction=extraction, rows=rows, vectors=vectors, vector_spec=request, groups=groups,
                          groups_within=groups_within, **self._fit_options())
        self._index_classes()
        return self

    def _index_classes(self):
        # The model's classes are the labels as strings, sorted as strings;
        # classes_ are sorted as NumPy sorts them.
        pos = {str(c): i for i, c in enumerate(self.classes_)}
        self._to_classes = np.array([pos[c] for c in self.model_.classes] + [-1])
        model_pos = {c: i for i, c in enumerate(self.model_.classes)}
        self._columns = np.array([model_pos[str(c)] for c in self.classes_])
        self.chosen_ = self.model_.chosen
        self.n_features_in_ = self.model_.dim

    def __sklearn_is_fitted__(self):
        # Parameters such as lambda_ end in "_", which check_is_fitted
        # would otherwise take for fitted attributes.
        return hasattr(self, "model_")

    def _answers(self, X, vectors=None, **asked):
        check_is_fitted(self, "model_")
        request = self.model_.vectors
        if request is not None and vectors is None:
            raise ValueError(_vectors_missing(self, request))
        return self.model_.predict(_abi.matrices(X, "X"), vectors=vectors, workers=self.workers, **asked)

    def _indices(self, labels):
        model_pos = {c: i for i, c in enumerate(self.model_.classes)}
        return self._to_classes[[model_pos.get(l, -1) for l in labels]]

    def predict(self, X, vectors=None):
        """The predicted class of each matrix of X (with their vectors for a
        method that reads them)."""
        labels = self._answers(X, vectors).label
        return self.classes_[self._indices(labels)]

    def predict_scores(self, X, vectors=None):
        """covpipe's answers (covpipe.Predictions): the class and the class
        ranked second with their scores in [0, 1], and the SCI of SRC
        methods (see covpipe's model documentation, "Scores")."""
        return self._answers(X, vectors)

    def _gives_probabilities(self):
        return self._declares("probabilities")

    @available_if(_gives_probabilities)
    def predict_proba(self, X, vectors=None):
        """Each matrix's probability of every class of classes_, in that
        order (rows sum to 1): covpipe's class probabilities
        (model.Prediction.Probabilities), made of what the method ranks
        the classes by: the SRC methods' shares of the query's energy
        (rsr, logE-SR, pca-src, gsr), stein-svm's Platt probabilities
        coupled over its one-vs-one machines, the softmax of minus the
        squared distances for mdm, nn, rlpp, codes and tsc, the mean of
        the regions' for a fused model. The predicted class has the
        largest probability but for stein-svm, whose label is the
        machines' vote, and fused models, whose label is the fusion
        rule's. Present for methods that give them (not sdalf, hpe, nn
        with the AIRM metric)."""
        return self._answers(X, vectors, probabilities=True).probabilities[:, self._columns]

    def _gives_costs(self):
        return self._declares("costs")

    @available_if(_gives_costs)
    def decision_function(self, X, vectors=None):
        """Minus covpipe's class costs (model.Prediction.Costs), higher
        meaning more likely, a column per class of classes_: minus the class
        residuals ε_c of Eqn. 9 for rsr and logE-SR (whose label is the
        class of the smallest, the default rule), p_c − 1 for stein-svm
        (the calibrated probabilities; its label is the vote), minus the
        distance to the class's mean (mdm) or nearest member (nn). With two
        classes, scikit-learn's convention: cost(classes_[0]) −
        cost(classes_[1]), positive for classes_[1]. Present for methods
        that give costs on one descriptor per image (rsr, logE-SR,
        stein-svm, mdm, nn but with AIRM). For the SRC methods it is not a
        monotone function of predict_proba (residuals against shares of
        the energy)."""
        C = self._answers(X, vectors, costs=True).costs[:, self._columns]
        if len(self.classes_) == 2:
            return C[:, 0] - C[:, 1]
        return -C

    def _transforms(self):
        return self._declares("transforms" if hasattr(self, "model_") else "dictionary")

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


def _vectors_missing(est, request):
    return ("%s (method %s) reads each image's vectors beside its descriptor (features %s, step %d): pass "
            "vectors=V, V from covpipe.describe(..., vectors=est.vector_request()), or fit and predict on images "
            "with covpipe fit and covpipe predict" % (type(est).__name__, est._method, request["feature_spec"],
                                                      request["step"]))


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
    if info["vectors"]:
        v = info["vectors"]
        lines += ["", "It reads each image's pixels as a vector beside its descriptor (features %s, step %d with the "
                  "example's parameters; vector_request() says which for yours): describe the images with "
                  "covpipe.describe(..., vectors=est.vector_request()) and pass the vectors to fit and predict "
                  "(vectors=V)." % (v["feature_spec"], v["step"])]
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



def _atoms(estimators):
    """The dictionary size of the estimators that make a dictionary (0 for
    none), which must agree."""
    sizes = {e.atoms for e in estimators if e._info.get("dictionary")}
    if len(sizes) > 1:
        raise ValueError("atoms: candidates make dictionaries of %s atoms: covpipe makes one size for all" % sorted(sizes))
    return sizes.pop() if sizes else 0


class Best(CovpipeClassifier, _BaseComposition):
    """covpipe's method best: of the candidates, the one that classifies
    the training items best under folds-fold cross-validation (each
    candidate choosing its own parameters inside each fold), fitted on
    all of them (`covpipe fit --method best`, an experiment file's best
    entry; classify.Best).

    Parameters
    ----------
    candidates : list of (str, estimator)
        named covpipe estimators (their method and parameters; their own
        folds, seed and workers are not used), two or more, in the order
        of preference of the one-standard-error rule; their parameters are
        set as name__param (GridSearchCV, set_params)
    rule : str or None
        "one-se" (None: the default), the first listed whose accuracy is
        within one standard error of the most accurate's (Hastie et al.,
        Sec. 7.10), or "max", the most accurate
    folds : int or None
        cross-validation folds (None: 3)
    seed : int
        seed of the folds
    workers : int
        goroutines (0: all cores); the results do not depend on it

    After fit, chosen_method_ names the chosen candidate. predict_proba
    exists when every candidate gives class probabilities (after fit,
    when the chosen one does), decision_function likewise for class
    costs.
    """

    _method = "best"
    _required_parameters = ["candidates"]

    def __init__(self, candidates, *, rule=None, folds=None, seed=0, workers=0):
        self.candidates = candidates
        self.rule = rule
        self.folds = folds
        self.seed = seed
        self.workers = workers

    def get_params(self, deep=True):
        return self._get_params("candidates", deep=deep)

    def set_params(self, **params):
        self._set_params("candidates", **params)
        return self

    def _named(self):
        try:
            pairs = [(str(n), e) for n, e in self.candidates]
        except (TypeError, ValueError):
            raise ValueError("candidates: %r: want a list of (name, estimator) pairs" % (self.candidates,)) from None
        for n, e in pairs:
            if not isinstance(e, CovpipeClassifier) or isinstance(e, (Best, Fused)):
                raise ValueError("candidates: %s is a %s: want an estimator of a covpipe method type (covpipe.sklearn)"
                                 % (n, type(e).__name__))
        return pairs

    def _fit_options(self):
        pairs = self._named()
        params = {} if self.rule is None else {"rule": str(self.rule)}
        return {"method": "best", "params": params, "atoms": _atoms([e for _, e in pairs]),
                "candidates": [{"name": n, "method": e._method, "params": e._options()} for n, e in pairs]}

    def _spec(self):
        specs = [e._spec() for _, e in self._named()]
        return {"probabilities": all(s["probabilities"] for s in specs), "costs": all(s["costs"] for s in specs),
                "dictionary": False}

    def vector_request(self):
        """The vectors that the candidates read (None for none); candidates
        that read different vectors are refused (covpipe fit on images
        describes the images for each)."""
        if hasattr(self, "model_"):
            return self.model_.vectors
        requests = []
        for _, e in self._named():
            v = e.vector_request()
            if v is not None and v not in requests:
                requests.append(v)
        if len(requests) > 1:
            raise ValueError("candidates read different vectors (%s): fit a best model of them on images with "
                             "covpipe fit" % ", ".join("features %s, step %d" % (v["feature_spec"], v["step"]) for v in requests))
        return requests[0] if requests else None

    def fit(self, X, y, vectors=None, extraction=None, rows=None, groups=None, groups_within=False):
        """Chooses among the candidates and fits the chosen one (see
        CovpipeClassifier.fit)."""
        super().fit(X, y, vectors=vectors, extraction=extraction, rows=rows, groups=groups, groups_within=groups_within)
        self.chosen_method_ = self.model_.info["chosen_method"]
        return self


class Fused(CovpipeClassifier):
    """A method on images of several regions each: estimator's method
    fitted on each region of the descriptors' layout (covpipe.describe's
    regions, such as "grid:3x3:16"), its regions' class costs fused by the
    rule of choice into one answer per image (covpipe fit --fusion,
    classify.Fused; docs: "Several regions per image").

    fit(X, y, rows) takes every region's descriptor with its rows, as
    covpipe.describe returns them (they group the regions by image), and
    a label per descriptor; predict(X) takes each image's regions one
    after another, in the layout's order, and answers once per image.

    Parameters
    ----------
    estimator : estimator
        a covpipe estimator of a method that gives class costs (rsr,
        logE-SR, stein-svm, mdm, nn but with AIRM)
    rules : tuple of str
        fusion rules (sum, normalized, vote, weighted, ...); two or more
        are chosen among by cross-validation
    folds, seed, workers : as the estimators'
    """

    _required_parameters = ["estimator"]

    def __init__(self, estimator, *, rules=("sum",), folds=None, seed=0, workers=0):
        self.estimator = estimator
        self.rules = rules
        self.folds = folds
        self.seed = seed
        self.workers = workers

    @property
    def _method(self):
        return self._inner()._method

    def _inner(self):
        e = self.estimator
        if not isinstance(e, CovpipeClassifier) or isinstance(e, (Best, Fused)):
            raise ValueError("estimator: a %s: want an estimator of a covpipe method type (covpipe.sklearn)" % type(e).__name__)
        return e

    def _fit_options(self):
        rules = [self.rules] if isinstance(self.rules, str) else list(self.rules)
        return dict(self._inner()._fit_options(), fusion=rules)

    def _spec(self):
        return dict(self._inner()._spec(), costs=False)

    def vector_request(self):
        return None

    def fit(self, X, y, rows=None, extraction=None, groups=None, groups_within=False):
        """Fits the method on each region (see the class documentation);
        rows, covpipe.describe's, are required; groups as
        CovpipeClassifier.fit's, one per descriptor."""
        if rows is None:
            raise ValueError("rows: Fused needs covpipe.describe's rows, which group each image's regions")
        return super().fit(X, y, extraction=extraction, rows=rows, groups=groups, groups_within=groups_within)


__all__ = ["Best", "CovpipeClassifier", "CovpipeTransformer", "Fused", "by_method", "class_name", "from_model"] + sorted(
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

