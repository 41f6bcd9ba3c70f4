"""The generated estimators follow scikit-learn's conventions."""

import inspect
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline

import covpipe
import covpipe.sklearn as cs
from conftest import spd_data


def test_a_class_per_method_type():
    names = [m["name"] for m in covpipe.registry()["methods"]]
    assert sorted(cs.by_method) == sorted(names)
    assert cs.by_method["rsr"] is cs.SteinSRC and cs.by_method["codes"] is cs.SparseCoder
    assert cs.class_name("tangent-space") == "TangentSpace"
    for m in covpipe.registry()["methods"]:
        cls = cs.by_method[m["name"]]
        params = inspect.signature(cls).parameters
        for p in m["params"]:
            assert cs.param_name(p["key"]) in params
            assert p["help"] in cls.__doc__
        assert {"folds", "seed", "workers"} <= set(params)


def test_get_set_params_and_clone():
    clf = cs.SteinSRC(sigma=[0.5, 1], lambda_=0.1)
    p = clf.get_params()
    assert p["sigma"] == [0.5, 1] and p["lambda_"] == 0.1 and p["lambda_ratio"] is None and p["folds"] is None
    clf.set_params(sigma=1.5, folds=2)
    assert clf.sigma == 1.5 and clf.folds == 2
    c = clone(clf)
    assert c is not clf and c.get_params() == clf.get_params()
    with pytest.raises(ValueError):
        clf.set_params(sigmas=1)


def test_fit_predict_classes_keep_their_type(data):
    X, y = data
    names = np.array(["cat", "dog", "eel"])[y]
    clf = cs.SteinSRC().fit(X, names)
    assert list(clf.classes_) == ["cat", "dog", "eel"]
    assert clf.predict(X).dtype == names.dtype
    # Integer labels whose string order differs from their order.
    y10 = np.array([2, 10, 1])[y]
    pred = cs.NearestNeighbour(metric="airm").fit(X, y10).predict(X)
    assert pred.dtype == y10.dtype and np.array_equal(pred, y10)


def test_pickle_round_trip(data):
    X, y = data
    clf = cs.SteinSRC(sigma=[0.5, 1]).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert again.get_params() == clf.get_params() and again.chosen_ == clf.chosen_
    a, b = clf.predict_scores(X), again.predict_scores(X)
    assert np.array_equal(a.label, b.label) and a.score.tobytes() == b.score.tobytes()
    assert np.array_equal(pickle.loads(pickle.dumps(cs.SteinSRC())).get_params()["sigma"], None)


def test_pipeline_grid_search_cross_val(data):
    X, y = data
    pipe = Pipeline([("clf", cs.SteinSRC())])
    grid = GridSearchCV(pipe, {"clf__sigma": [0.5, 1.5], "clf__lambda_ratio": [0.05, 0.2]}, cv=3).fit(X, y)
    assert grid.best_params_["clf__sigma"] in (0.5, 1.5)
    assert grid.score(X, y) > 0.9
    scores = cross_val_score(cs.MDM(metric="airm"), X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.8


def test_predict_proba_two_classes():
    X, y = spd_data(10, classes=2)
    clf = cs.SteinSVC(c=1).fit(X, y)
    p = clf.predict_proba(X)
    assert p.shape == (len(X), 2)
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=1e-12)
    a = clf.predict_scores(X)
    first = np.searchsorted(clf.classes_, clf.predict(X))
    assert np.array_equal(p[np.arange(len(X)), first], a.score)
    X3, y3 = spd_data(6, classes=3)
    assert cs.SteinSVC(c=1).fit(X3, y3).predict_proba(X3).shape == (len(X3), 3)  # any number of classes
    assert hasattr(cs.TSC(lambda_=0.1), "predict_proba")  # probabilities without scores


def test_transform_of_coders(data):
    X, y = data
    coder = cs.SparseCoder(dictionary="kmeans", sigma=1, lambda_ratio=0.05, atoms=6).fit(X, y)
    assert coder.transform(X).shape == (len(X), 6)
    assert coder.fit_transform(X, y).shape == (len(X), 6)
    assert not hasattr(cs.SteinSRC().fit(X, y), "transform")


@pytest.mark.parametrize("change,match", [
    (lambda X: X.astype(np.float32), "dtype float32"),
    (lambda X: X[:, :, :3], r"want \(n, d, d\)"),
    (lambda X: np.asfortranarray(X), "C-contiguous"),
    (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 20, np.nan, X), "matrix 1: .*non-finite"),
    (lambda X: X - 10 * np.eye(X.shape[1]), "not positive definite"),
], ids=["dtype", "shape", "layout", "NaN", "not SPD"])
def test_bad_input_raises_value_error(data, change, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        cs.SteinSRC().fit(change(X), y)
    clf = cs.SteinSRC().fit(X, y)
    with pytest.raises(ValueError, match=match):
        clf.predict(change(X))


def test_parameters_refused_by_covpipe(data):
    X, y = data
    with pytest.raises(ValueError, match="sigma"):
        cs.SteinSRC(sigma=0.7).fit(X, y)  # not in Theorem 1's set for d = 4
    with pytest.raises(ValueError, match="missing c"):
        cs.SteinSVC().fit(X, y)
    with pytest.raises(ValueError, match="y: shape"):
        cs.SteinSRC().fit(X, y[:-1])


def test_groups_make_group_folds():
    # Three groups cut across the classes: folds by group hold out one
    # group each (GroupKFold), which five stratified folds of three items
    # per class cannot; within classes each class's groups are dealt
    # round the folds, so each fold holds every class out.
    X, y = spd_data(3, classes=3, seed=4)
    groups = np.tile(["ba", "bj", "bk"], 3)
    with pytest.raises(ValueError, match="lower the folds"):
        cs.SteinSRC(lambda_ratio=[0.05, 0.2], folds=5).fit(X, y)
    clf = cs.SteinSRC(lambda_ratio=[0.05, 0.2], folds=5).fit(X, y, groups=groups)
    info = clf.model_.info
    assert info["folds_by"] == "folds_by: group"
    (table,) = info["cv"]
    assert table["items"] == 9 and all(len(r["folds"]) == 3 for r in table["candidates"])
    # A fold's accuracy is a share of its held-out group's three items.
    assert all(round(a * 3 / 100) * 100 / 3 == pytest.approx(a) for r in table["candidates"] for a in r["folds"])
    within = cs.SteinSRC(lambda_ratio=[0.05, 0.2], folds=3).fit(X, y, groups=groups, groups_within=True)
    assert within.model_.info["folds_by"] == "folds_within: group"
    with pytest.raises(ValueError, match="a group per matrix"):
        cs.SteinSRC(lambda_ratio=[0.05, 0.2]).fit(X, y, groups=groups[:-1])
    with pytest.raises(ValueError, match="groups_within without groups"):
        cs.SteinSRC(lambda_ratio=[0.05, 0.2]).fit(X, y, groups_within=True)
