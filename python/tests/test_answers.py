"""Class probabilities, decision functions, methods that read images'
vectors, best and fused models: the estimators against the covpipe
command on the same images (bit for bit) and against their definitions."""

import csv
import io
import json
import os

import numpy as np
import pytest
from sklearn.base import clone

import covpipe
import covpipe.sklearn as cs
from conftest import CASES, spd_data

def test_cases_cover_the_registry():
    assert sorted(c[0] for c in CASES) == sorted(m["name"] for m in covpipe.registry()["methods"])


def read_predictions(text):
    """predictions.csv's rows: (label, score, second label, second score)
    and the p:CLASS columns as a dict, floats parsed exactly."""
    rows = list(csv.DictReader(io.StringIO(text)))
    answers = [(r["label"], float(r["score"]), r["second_label"], float(r["second_score"])) for r in rows]
    probs = [{k[2:]: float(v) for k, v in r.items() if k.startswith("p:")} for r in rows]
    return answers, probs


def bits(x):
    """x's float64 bits, every NaN as NumPy's (covpipe's NaN, "no score",
    has another payload than the text "NaN" parses to)."""
    a = np.array(x, dtype=np.float64)
    a[np.isnan(a)] = np.nan
    return a.tobytes()


def same(got, want):
    """Equal answers (label, score, second label, second score), the
    scores bit for bit."""
    assert [(g[0], g[2]) for g in got] == [(w[0], w[2]) for w in want]
    assert bits([g[1] for g in got]) == bits([w[1] for w in want])
    assert bits([g[3] for g in got]) == bits([w[3] for w in want])


def check_probabilities(clf, X, vectors, P):
    """P, predict_proba's, is a distribution per row whose most probable
    class is the prediction (ties included), but for stein-svm, whose label
    is the machines' vote: there the label's probability is its score."""
    assert P.shape == (len(X), len(clf.classes_))
    assert (P >= 0).all()
    np.testing.assert_allclose(P.sum(axis=1), 1, rtol=0, atol=1e-12)
    label = np.searchsorted(clf.classes_, clf.predict(X, vectors=vectors))
    chosen = P[np.arange(len(P)), label]
    if clf._method == "stein-svm":
        assert bits(chosen) == bits(clf.predict_scores(X, vectors=vectors).score)
    else:
        assert (chosen == P.max(axis=1)).all()


@pytest.mark.parametrize("method,flags,estimator,fixture", CASES, ids=[c[0] for c in CASES])
def test_answers_and_probabilities_match_cli(request, cli, tmp_path, method, flags, estimator, fixture):
    images = request.getfixturevalue(fixture)
    clf = estimator().set_params(seed=3, folds=2)
    gives = covpipe.method_spec(method, clf._options())["probabilities"]
    assert hasattr(clf, "predict_proba") == gives
    extra = ["--probabilities"] if gives else []
    cli("fit", "--out", tmp_path / "cli", "--method", method, *flags, "--features", "I,Ix,Iy", "--seed", 3,
        "--folds", 2, images)
    want, want_p = read_predictions(cli("predict", "--model", tmp_path / "cli", *extra, images))

    request_ = clf.vector_request()
    assert (request_ is not None) == (method in ("pca-src", "gsr", "sdalf", "hpe"))
    if request_ is None:
        X, rows, meta = covpipe.describe(images, features="I,Ix,Iy", meta=True)
        V = None
    else:
        X, rows, meta, V = covpipe.describe(images, features="I,Ix,Iy", meta=True, vectors=request_)
        assert V.shape[0] == len(X)
    y = np.array([r["label"] for r in rows])
    clf.fit(X, y, vectors=V, extraction=meta)
    a = clf.predict_scores(X, vectors=V)
    same(list(zip(a.label, a.score, a.second, a.second_score)), want)
    assert hasattr(clf, "predict_proba") == gives == clf.model_.probabilities
    if gives:
        P = clf.predict_proba(X, vectors=V)
        assert bits(P) == bits([[p[c] for c in clf.classes_] for p in want_p])
        check_probabilities(clf, X, V, P)

    # Saved from Python, the model answers with the command on the images:
    # it records the vectors it reads.
    clf.save(tmp_path / "py")
    again, again_p = read_predictions(cli("predict", "--model", tmp_path / "py", *extra, images))
    same(again, want)
    assert again_p == want_p
    if V is not None:
        with pytest.raises(ValueError, match="vectors=V"):
            clf.predict(X)
        with pytest.raises(ValueError, match="vectors=V"):
            clone(clf).fit(X, y)


def test_vectors_refused_by_methods_that_read_none(data):
    X, y = data
    with pytest.raises(ValueError, match="reads no vectors"):
        cs.MDM().fit(X, y, vectors=np.ones((len(X), 4)))
    with pytest.raises(ValueError, match=r"vectors: shape \(2, 4\)"):
        cs.PCASRC(dims=2, lambda_=0.1).fit(X, y, vectors=np.ones((2, 4)))


def test_probabilities_follow_the_parameters(data):
    X, y = data
    assert hasattr(cs.NearestNeighbour(metric="stein"), "predict_proba")
    assert not hasattr(cs.NearestNeighbour(metric="airm"), "predict_proba")  # its ranking prunes classes
    assert not hasattr(cs.NearestNeighbour(metric="airm").fit(X, y), "predict_proba")
    assert not hasattr(cs.SDALF(), "predict_proba") and not hasattr(cs.HPE(), "decision_function")
    with pytest.raises(ValueError, match="gives no class probabilities"):
        cs.NearestNeighbour(metric="airm").fit(X, y).model_.predict(X, probabilities=True)


def test_probabilities_in_classes_order():
    # Integer labels sort otherwise as strings ("10" < "9"), which name
    # covpipe's classes: the columns follow classes_.
    X, y = spd_data(8, classes=3, seed=5)
    y = np.array([9, 10, 11])[y]
    clf = cs.MDM(metric="stein").fit(X, y)
    assert list(clf.classes_) == [9, 10, 11] and clf.model_.classes == ["10", "11", "9"]
    P = clf.predict_proba(X)
    assert (clf.classes_[P.argmax(axis=1)] == clf.predict(X)).all()
    raw = clf.model_.predict(X, probabilities=True).probabilities
    assert bits(P) == bits(raw[:, [2, 0, 1]])


def stein_costs(Xq, Xtrain, ytrain, classes, mean=False):
    """Each query's Stein divergence S to each class's nearest member (nn's
    cost), or with mean √S to the class's Stein mean (mdm's)
    (covpipe.distance, covpipe.mean)."""
    out = np.empty((len(Xq), len(classes)))
    for k, c in enumerate(classes):
        members = np.ascontiguousarray(Xtrain[ytrain == c])
        if mean:
            out[:, k] = np.sqrt(covpipe.distance(Xq, covpipe.mean(members, metric="stein")[np.newaxis], metric="stein")[:, 0])
        else:
            out[:, k] = covpipe.distance(Xq, members, metric="stein").min(axis=1)
    return out


def test_decision_function_is_minus_the_costs():
    X, y = spd_data(10, classes=3, seed=1)
    Xq, yq = spd_data(5, classes=3, seed=2)
    nn = cs.NearestNeighbour(metric="stein").fit(X, y)
    np.testing.assert_allclose(nn.decision_function(Xq), -stein_costs(Xq, X, y, nn.classes_), rtol=1e-12, atol=0)
    mdm = cs.MDM(metric="stein").fit(X, y)
    np.testing.assert_allclose(mdm.decision_function(Xq), -stein_costs(Xq, X, y, mdm.classes_, mean=True), rtol=1e-9)
    for clf in (nn, mdm, cs.SteinSRC(sigma=0.5, lambda_ratio=0.1).fit(X, y), cs.LogESR(lambda_=0.1).fit(X, y)):
        D = clf.decision_function(Xq)
        assert D.shape == (len(Xq), 3)
        assert (clf.classes_[D.argmax(axis=1)] == clf.predict(Xq)).all()
    svm = cs.SteinSVC(c=1).fit(X, y)
    assert bits(svm.decision_function(Xq)) == bits(svm.predict_proba(Xq) - 1)  # −(1 − p_c)
    for clf in (cs.TSC(lambda_=0.1), cs.RLPP(sigma=0.5), cs.NearestNeighbour(metric="airm"), cs.SparseCoder()):
        assert not hasattr(clf, "decision_function")


def test_decision_function_of_two_classes():
    X, y = spd_data(10, classes=2, seed=3)
    y = np.where(y == 0, "no", "yes")
    for clf in (cs.SteinSRC(sigma=0.5, lambda_ratio=0.1), cs.MDM(metric="log-euclidean"), cs.SteinSVC(c=1)):
        clf.fit(X, y)
        D = clf.decision_function(X)
        C = clf.model_.predict(X, costs=True).costs  # classes "no", "yes"
        assert D.shape == (len(X),) and bits(D) == bits(C[:, 0] - C[:, 1])
        if clf._method != "stein-svm":
            assert (clf.classes_[(D > 0).astype(int)] == clf.predict(X)).all()


@pytest.fixture(scope="module")
def best_config(tmp_path_factory):
    path = tmp_path_factory.mktemp("config") / "best.yaml"
    path.write_text("""name: best
repeats: 1
data: {dataset: "folder:images", features: "I,Ix,Iy"}
tasks:
  - {name: all, split: {train_per_class: 4}}
methods:
  - {name: rsr, sigma: 0.5, lambda_ratio: 0.1}
  - {name: nn, type: nn, metric: airm}
  - {name: mdm, type: mdm, metric: stein}
  - {name: best, of: [rsr, nn, mdm], rule: max}
""")
    return str(path)


def best():
    return cs.Best([("rsr", cs.SteinSRC(sigma=0.5, lambda_ratio=0.1)), ("nn", cs.NearestNeighbour(metric="airm")),
                    ("mdm", cs.MDM(metric="stein"))], rule="max", seed=3, folds=2)


def test_best_matches_cli(images, cli, best_config, tmp_path):
    cli("fit", "--config", best_config, "--method", "best", "--seed", 3, "--folds", 2, "--out", tmp_path / "cli", images)
    want, _ = read_predictions(cli("predict", "--model", tmp_path / "cli", images))
    record = json.load(open(tmp_path / "cli" / "model.json"))

    X, rows = covpipe.describe(images, features="I,Ix,Iy")
    y = np.array([r["label"] for r in rows])
    clf = best()
    assert not hasattr(clf, "predict_proba")  # nn with AIRM gives none
    clf.fit(X, y)
    assert clf.chosen_method_ == record["chosen_method"] == "rsr"  # all right: the first listed
    a = clf.predict_scores(X)
    assert list(a.label) == [w[0] for w in want] and bits(a.score) == bits([w[1] for w in want])
    assert hasattr(clf, "predict_proba") and hasattr(clf, "decision_function")  # the chosen one's
    check_probabilities(clf, X, None, clf.predict_proba(X))


def test_best_parameters_clone_pickle(data):
    import pickle
    X, y = data
    clf = best()
    p = clf.get_params()
    assert p["rsr__sigma"] == 0.5 and p["rule"] == "max" and p["mdm"] is clf.candidates[2][1]
    clf.set_params(rsr__lambda_ratio=0.2, rule="one-se")
    assert clf.candidates[0][1].lambda_ratio == 0.2 and clf.rule == "one-se"
    c = clone(clf)
    assert c.candidates[0][1] is not clf.candidates[0][1] and c.candidates[0][1].lambda_ratio == 0.2
    assert set(c.get_params(deep=False)) == {"candidates", "rule", "folds", "seed", "workers"}
    c.fit(X, y)
    again = pickle.loads(pickle.dumps(c))
    assert bits(again.predict_scores(X).score) == bits(c.predict_scores(X).score)
    with pytest.raises(ValueError, match="want an estimator of a covpipe method type"):
        cs.Best([("a", cs.MDM()), ("b", best())]).fit(X, y)
    with pytest.raises(ValueError, match="two or more candidates"):
        cs.Best([("a", cs.MDM())]).fit(X, y)
    with pytest.raises(ValueError, match="rule"):
        best().set_params(rule="min").fit(X, y)


def test_fused_regions_match_cli(images, cli, tmp_path):
    flags = ["--method", "rsr", "--sigma", "0.5", "--lambda-ratio", "0.1", "--features", "I,Ix,Iy",
             "--regions", "grid:2x2", "--fusion", "sum"]
    cli("fit", "--out", tmp_path / "cli", *flags, images)
    want, want_p = read_predictions(cli("predict", "--model", tmp_path / "cli", "--probabilities", images))

    X, rows, meta = covpipe.describe(images, features="I,Ix,Iy", regions="grid:2x2", meta=True)
    y = np.array([r["label"] for r in rows])
    assert len(X) == 4 * len(want)
    clf = cs.Fused(cs.SteinSRC(sigma=0.5, lambda_ratio=0.1), rules=("sum",))
    with pytest.raises(ValueError, match="rows"):
        clone(clf).fit(X, y)
    clf.fit(X, y, rows=rows, extraction=meta)
    a = clf.predict_scores(X)
    assert list(a.label) == [w[0] for w in want] and bits(a.score) == bits([w[1] for w in want])
    P = clf.predict_proba(X)
    assert bits(P) == bits([[p[c] for c in clf.classes_] for p in want_p])
    assert not hasattr(clf, "decision_function")  # fused costs are the rule's
    assert clf.get_params()["estimator__sigma"] == 0.5
    assert clf.score(X, y[::4]) == np.mean(clf.predict(X) == y[::4])
