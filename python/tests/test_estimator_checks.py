"""scikit-learn's estimator checks on covpipe's estimators.

scikit-learn's checks make their own data, 2-D arrays of shape (n,
features), where covpipe's X is (n, d, d) SPD matrices: check_estimator
therefore skips the estimators altogether (their X_types tag is
"3darray"). Here every check that scikit-learn would run on a 2-D
classifier is enumerated; those that need no data, or only check that
bad input is refused, run and must pass (APPLICABLE); those that feed
2-D data are skipped with the reason (SKIPPED), and the ones that
matter have an equivalent on SPD matrices below (test_spd_*). A check
that a newer scikit-learn adds is in neither list and fails, until it is
placed in one."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import estimator_checks

import covpipe.sklearn as cs
from conftest import CASES, spd_data

APPLICABLE = {
    "check_no_attributes_set_in_init": "__init__ sets the parameters only",
    "check_parameters_default_constructible": "defaults are None, numbers, strings or tuples",
    "check_get_params_invariance": "get_params(deep=False) is part of get_params()",
    "check_set_params": "set_params keeps any value (covpipe checks them at fit)",
    "check_estimator_get_tags_default_keys": "the tags hold scikit-learn's keys",
    "check_estimators_unfitted": "predict, predict_proba and decision_function raise NotFittedError",
    "check_transformers_unfitted": "transform raises NotFittedError",
    "check_fit1d": "1-D X is refused with ValueError",
    "check_classifiers_one_label_sample_weights": "fit takes no sample_weight (TypeError naming it)",
    "check_estimators_partial_fit_n_features": "no partial_fit",
    "check_non_transformer_estimators_n_iter": "no max_iter (an estimator with one, tangent-space, is fed 2-D data: skipped)",
    "check_transformer_n_iter": "no max_iter",
}

FEEDS_2D = "feeds 2-D data (n, features); covpipe's X is (n, d, d) SPD matrices"
SKIPPED = {name: FEEDS_2D + (" (SPD equivalent: %s)" % spd if spd else "") for name, spd in {
    "check_estimators_dtypes": "test_bad_input_raises_value_error: other dtypes are refused",
    "check_fit_score_takes_y": "",
    "check_estimators_fit_returns_self": "test_spd_fit_returns_self_and_keeps_parameters",
    "check_complex_data": "test_bad_input_raises_value_error",
    "check_dtype_object": "test_bad_input_raises_value_error",
    "check_estimators_empty_data_messages": "test_spd_refusals",
    "check_pipeline_consistency": "test_sklearn.py::test_pipeline_grid_search_cross_val",
    "check_estimators_nan_inf": "test_bad_input_raises_value_error (NaN)",
    "check_estimators_overwrite_params": "test_spd_fit_returns_self_and_keeps_parameters",
    "check_estimator_sparse_data": "",
    "check_estimators_pickle": "test_spd_pickle",
    "check_classifier_data_not_an_array": "test_spd_refusals (lists of matrices are taken)",
    "check_classifiers_one_label": "test_spd_refusals",
    "check_classifiers_classes": "test_spd_classes",
    "check_classifiers_train": "test_answers.py (answers of every method bit for bit the command's)",
    "check_classifiers_regression_target": "",
    "check_supervised_y_no_nan": "",
    "check_supervised_y_2d": "test_sklearn.py::test_parameters_refused_by_covpipe (y of another shape)",
    "check_decision_proba_consistency": "none: the SRC methods' costs (residuals) and probabilities "
                                        "(shares of the energy) need not rank alike",
    "check_transformer_data_not_an_array": "",
    "check_transformer_general": "test_sklearn.py::test_transform_of_coders",
    "check_transformer_preserve_dtypes": "",
    "check_methods_sample_order_invariance": "test_spd_order_and_subset_invariance",
    "check_methods_subset_invariance": "test_spd_order_and_subset_invariance",
    "check_fit2d_1sample": "",
    "check_fit2d_1feature": "",
    "check_dict_unchanged": "test_spd_fit_returns_self_and_keeps_parameters",
    "check_dont_overwrite_parameters": "test_spd_fit_returns_self_and_keeps_parameters",
    "check_fit_idempotent": "test_spd_fit_idempotent",
    "check_fit_check_is_fitted": "test_spd_is_fitted",
    "check_n_features_in": "test_spd_is_fitted",
    "check_fit2d_predict1d": "",
    "check_requires_y_none": "",
}.items()}


def estimators():
    """An estimator of every method type (the registry's examples), a best
    model and a fused one."""
    out = [make() for _, _, make, _ in CASES]
    out.append(cs.Best([("rsr", cs.SteinSRC(sigma=0.5, lambda_ratio=0.1)), ("mdm", cs.MDM())]))
    out.append(cs.Fused(cs.SteinSRC(sigma=0.5, lambda_ratio=0.1)))
    return out


def sklearn_checks(est):
    """The checks scikit-learn runs on est were its X 2-D: those of a
    subclass tagged "2darray" (scikit-learn returns none for "3darray")."""
    probe = type("Probe", (type(est),), {"_more_tags": lambda self: {"X_types": ["2darray"], "requires_y": True}})
    return list(estimator_checks._yield_all_checks(probe(**est.get_params(deep=False))))


def check_name(check):
    return getattr(check, "func", check).__name__


def check_cases():
    for est in estimators():
        for check in sklearn_checks(est):
            kw = getattr(check, "keywords", {})
            yield pytest.param(est, check, id="%s-%s%s" % (type(est).__name__, check_name(check),
                                                         "".join("-%s=%s" % kv for kv in sorted(kw.items()))))


@pytest.mark.parametrize("est,check", check_cases())
def test_sklearn_check(est, check):
    name = check_name(check)
    if name in SKIPPED:
        pytest.skip(SKIPPED[name])
    assert name in APPLICABLE, "%s is a check of this scikit-learn that is neither APPLICABLE nor SKIPPED" % name
    if name.endswith("_n_iter") and "max_iter" in est.get_params():
        pytest.skip(FEEDS_2D + " (it fits iris to read n_iter_)")
    check(type(est).__name__, est)


def test_check_estimator_skips_3d_estimators():
    # What scikit-learn's own entry point does with them (the reason for
    # the enumeration above).
    with pytest.warns(estimator_checks.SkipTestWarning, match="3darray"):
        estimator_checks.check_estimator(cs.SteinSRC())


def test_lists_are_disjoint_and_used():
    assert not set(APPLICABLE) & set(SKIPPED)
    seen = {check_name(c) for est in estimators() for c in sklearn_checks(est)}
    assert seen <= set(APPLICABLE) | set(SKIPPED)
    assert set(APPLICABLE) <= seen


# SPD equivalents of the skipped checks that matter, on every method
# type that takes matrices alone.
MATRIX_CASES = [pytest.param(make, id=name) for name, _, make, fixture in CASES
                if name not in ("pca-src", "gsr", "sdalf", "hpe")]


@pytest.fixture(scope="module")
def spd():
    X, y = spd_data(8, d=3, classes=3, seed=7)
    Xq, _ = spd_data(3, d=3, classes=3, seed=8)
    return X, np.array(["a", "b", "c"])[y], Xq


def answers(clf, X):
    a = clf.predict_scores(X)
    return list(a.label), np.nan_to_num(a.score).tobytes(), np.nan_to_num(a.second_score).tobytes()


@pytest.mark.parametrize("make", MATRIX_CASES)
def test_spd_fit_returns_self_and_keeps_parameters(make, spd):
    X, y, Xq = spd
    clf = make()
    params = pickle.dumps(clf.get_params())
    X0, y0 = X.copy(), y.copy()
    assert clf.fit(X, y) is clf
    assert pickle.dumps(clf.get_params()) == params  # fit changes no parameter
    state = dict(clf.__dict__)
    clf.predict(Xq)
    assert clf.__dict__.keys() == state.keys() and all(clf.__dict__[k] is v for k, v in state.items())
    assert np.array_equal(X, X0) and np.array_equal(y, y0)


@pytest.mark.parametrize("make", MATRIX_CASES)
def test_spd_fit_idempotent(make, spd):
    X, y, Xq = spd
    clf = make().fit(X, y)
    first = answers(clf, Xq)
    assert answers(clf.fit(X, y), Xq) == first


@pytest.mark.parametrize("make", MATRIX_CASES)
def test_spd_order_and_subset_invariance(make, spd):
    X, y, Xq = spd
    clf = make().fit(X, y)
    labels, _, _ = answers(clf, Xq)
    scores = clf.predict_scores(Xq).score
    order = np.random.default_rng(0).permutation(len(Xq))
    a = clf.predict_scores(np.ascontiguousarray(Xq[order]))
    assert list(a.label) == [labels[i] for i in order]
    assert np.nan_to_num(a.score).tobytes() == np.nan_to_num(scores[order]).tobytes()
    for i in range(len(Xq)):
        one = clf.predict_scores(np.ascontiguousarray(Xq[i:i + 1]))
        assert one.label[0] == labels[i] and np.nan_to_num(one.score).tobytes() == np.nan_to_num(scores[i:i + 1]).tobytes()


@pytest.mark.parametrize("make", MATRIX_CASES)
def test_spd_is_fitted(make, spd):
    X, y, _ = spd
    clf = make()
    with pytest.raises(NotFittedError):
        estimator_checks.check_is_fitted(clf)
    clf.fit(X, y)
    estimator_checks.check_is_fitted(clf)
    assert clf.n_features_in_ == X.shape[1]


@pytest.mark.parametrize("make", MATRIX_CASES)
def test_spd_pickle(make, spd):
    X, y, Xq = spd
    clf = make().fit(X, y)
    assert answers(pickle.loads(pickle.dumps(clf)), Xq) == answers(clf, Xq)


@pytest.mark.parametrize("labels", [["x", "y", "z"], [3, 1, 2], [-1.5, 0.5, 2.0], [True, False, True]],
                         ids=["str", "int", "float", "bool"])
def test_spd_classes(labels, spd):
    X, y, Xq = spd
    if len(set(labels)) == 2:
        keep = y != "c"
        X, y = np.ascontiguousarray(X[keep]), y[keep]
    # The answers do not depend on how the classes are named.
    base = cs.MDM(metric="stein").fit(X, y).predict(Xq)
    yy = np.array([labels["abc".index(v)] for v in y])
    clf = cs.MDM(metric="stein").fit(X, yy)
    assert list(clf.classes_) == sorted(set(yy))
    got = clf.predict(Xq)
    assert got.dtype == yy.dtype and list(got) == [labels["abc".index(v)] for v in base]


def test_spd_refusals(spd):
    X, y, _ = spd
    with pytest.raises(ValueError, match="at least one matrix"):
        cs.MDM().fit(np.empty((0, 3, 3)), [])
    with pytest.raises(ValueError, match="two classes"):
        cs.MDM().fit(X, np.full(len(X), "a"))
    with pytest.raises(ValueError, match="want"):
        cs.MDM().fit(X.reshape(len(X), -1), y)
    assert (cs.MDM().fit(X.tolist(), y).predict(X.tolist()) == cs.MDM().fit(X, y).predict(X)).all()
    assert clone(cs.MDM()).get_params() == cs.MDM().get_params()
