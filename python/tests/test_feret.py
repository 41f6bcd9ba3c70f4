"""FERET-32 from Python against the covpipe command: configs/feret.yaml's
rsr fitted on the poses ba, bj, bk and tested on bg, bf, be, bd. Needs the
shared datasets ($COVPIPE_SHARED_DATA, else ../shared/datasets beside the
repository); skipped without them."""

import csv
import json
import os

import numpy as np
import pytest

import covpipe
from covpipe.sklearn import SteinSRC

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("COVPIPE_SHARED_DATA") or os.path.join(ROOT, "..", "shared", "datasets")
FERET = os.path.join(DATA, "feret-b-32")

pytestmark = pytest.mark.skipif(not os.path.isdir(FERET), reason="no FERET data at %s: set COVPIPE_SHARED_DATA" % FERET)


def test_feret_rsr_matches_cli(cli, tmp_path):
    spec = "feret:" + FERET
    cli("fit", "--config", os.path.join(ROOT, "configs", "feret.yaml"), "--method", "rsr", "--where", "pose=ba,bj,bk",
        "--out", tmp_path / "model", spec)
    cli("predict", "--model", tmp_path / "model", "--where", "pose=bg,bf,be,bd", "--out", tmp_path / "out", spec)
    with open(tmp_path / "out" / "predictions.csv") as f:
        want = {os.path.basename(r["path"]): (r["label"], float(r["score"])) for r in csv.DictReader(f)}
    record = json.load(open(tmp_path / "model" / "model.json"))

    # configs/feret.yaml's data section and rsr entry, its seed and folds.
    X, rows = covpipe.describe(spec, features="face", ridge=1e-4, ridge_kind="trace-ridge")
    names = np.array([os.path.basename(r["path"]) for r in rows])
    poses = np.array([n[5:7] for n in names])
    y = np.array([r["label"] for r in rows])
    train = np.isin(poses, ["ba", "bj", "bk"])
    test = np.isin(poses, ["bg", "bf", "be", "bd"])
    positions = [r["index"] for r, t in zip(rows, train) if t]
    seed = covpipe.fold_seed(1, positions)
    assert seed == record["seed"]  # the folds covpipe fit --config draws
    clf = SteinSRC(sigma=0.5, lambda_ratio=[0.05, 0.1, 0.2, 0.4], tolerance=1e-4, folds=3, seed=seed)
    clf.fit(np.ascontiguousarray(X[train]), y[train])
    assert clf.chosen_["lambda_ratio"] == record["chosen"]["lambda_ratio"]

    a = clf.predict_scores(np.ascontiguousarray(X[test]))
    assert len(want) == test.sum() == 800
    assert [want[n][0] for n in names[test]] == list(a.label)  # the same answer for every face
    assert np.array([want[n][1] for n in names[test]]).tobytes() == a.score.tobytes()
    truth = y[test]
    cli_labels = np.array([want[n][0] for n in names[test]])
    for pose in ["bg", "bf", "be", "bd"]:
        m = poses[test] == pose
        assert np.mean(a.label[m] == truth[m]) == np.mean(cli_labels[m] == truth[m]) > 0.3
