"""The Python package against the covpipe command on the same inputs, bit
for bit: descriptors, fitted models, their answers and saved state."""

import csv
import io
import os

import numpy as np
import pytest

import covpipe
from covpipe.sklearn import SteinSRC, SteinSVC, from_model


def predictions(text):
    """predictions.csv's rows as (label, score, second_label, second_score)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    return [(r["label"], float(r["score"]), r["second_label"], float(r["second_score"])) for r in rows]


def answers(p):
    return [(l, s, m, t) for l, s, m, t in zip(p.label, p.score, p.second, p.second_score)]


def same(a, b):
    """Equal rows, scores bit for bit (repr round-trips a float64)."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x[0] == y[0] and x[2] == y[2]
        assert np.float64(x[1]).tobytes() == np.float64(y[1]).tobytes()
        assert np.float64(x[3]).tobytes() == np.float64(y[3]).tobytes()


@pytest.fixture(scope="module")
def described(images, cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("desc") / "d"
    cli("describe", "--out", out, "--features", "I,Ix,Iy", "--regions", "whole", images)
    return str(out)


def test_describe_matches_cli(images, described):
    X, rows, meta = covpipe.describe(images, features="I,Ix,Iy", meta=True)
    want = np.load(os.path.join(described, "descriptors.npy"))
    assert X.shape == want.shape == (24, 3, 3)
    assert X.tobytes() == want.tobytes()
    assert [r["label"] for r in rows] == ["horizontal"] * 8 + ["speckle"] * 8 + ["vertical"] * 8
    assert meta["feature_spec"] == "I,Ix,Iy" and meta["dim"] == 3


@pytest.mark.parametrize("method,flags,estimator", [
    ("rsr", ["--sigma", "0.5,1", "--lambda-ratio", "0.1"], lambda: SteinSRC(sigma=[0.5, 1], lambda_ratio=0.1, seed=3, folds=2)),
    ("stein-svm", ["--sigma", "1", "--c", "1,10"], lambda: SteinSVC(sigma=1, c=[1, 10], seed=3, folds=2)),
], ids=["rsr", "stein-svm"])
def test_fit_predict_match_cli(images, described, cli, tmp_path, method, flags, estimator):
    cli("fit", "--out", tmp_path / "cli-model", "--method", method, *flags, "--seed", 3, "--folds", 2, described)
    want = predictions(cli("predict", "--model", tmp_path / "cli-model", described))

    X, rows, meta = covpipe.describe(images, features="I,Ix,Iy", meta=True)
    y = np.array([r["label"] for r in rows])
    clf = estimator().fit(X, y, extraction=meta)
    same(answers(clf.predict_scores(X)), want)
    assert list(clf.predict(X)) == [w[0] for w in want]

    # The command's model, loaded, answers as the command does.
    same(answers(covpipe.load_model(tmp_path / "cli-model").predict(X)), want)
    same(answers(from_model(tmp_path / "cli-model").predict_scores(X)), want)

    # The estimator's model, saved, is the command's: its state arrays
    # bit for bit, and covpipe predict answers with it on the descriptors
    # and on the images (the extraction options recorded).
    clf.save(tmp_path / "py-model")
    states = sorted(f for f in os.listdir(tmp_path / "cli-model") if f.startswith("state-"))
    assert states == sorted(f for f in os.listdir(tmp_path / "py-model") if f.startswith("state-"))
    for f in states + ["descriptors.npy"]:
        assert np.load(tmp_path / "py-model" / f).tobytes() == np.load(tmp_path / "cli-model" / f).tobytes()
    same(predictions(cli("predict", "--model", tmp_path / "py-model", described)), want)
    same(predictions(cli("predict", "--model", tmp_path / "py-model", images)), want)
    same(answers(clf.model_.predict_paths(images)), want)
