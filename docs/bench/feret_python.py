#!/usr/bin/python3
"""FERET-32 from Python: covpipe's Python package on the protocol of configs/feret.yaml.

Modes (the first argument):

  cli        What `covpipe fit --config configs/feret.yaml --method rsr
             --where pose=ba,bj,bk` and `covpipe predict --where
             pose=bg,bf,be,bd` compute, from Python: covpipe.describe of the
             1,400 faces of feret-b-32 with the config's data section
             (features face, zero Gabor border, trace ridge 1e-4), SteinSRC
             with its rsr entry (sigma 0.5, lambda_ratio 0.05 ... 0.4 chosen
             by 3-fold cross-validation, tolerance 1e-4) on the poses ba, bj,
             bk, with the folds' seed the command gives its model
             (covpipe.fold_seed of the config's seed 1 and the training
             images' positions), then predict on bg, bf, be, bd. Its
             accuracies equal the command's (python/tests/test_feret.py).
             --core does the same with covpipe.fit and Model.predict,
             without importing scikit-learn.
  numpy      The computation of docs/bench/feret_numpy.py: the same
             descriptors, SteinSRC with the fixed sigma 0.5, lambda 0.1,
             tolerance 1e-4 (no cross-validation).
  pyriemann  On the same descriptors (described once), the fit and predict
             times and accuracies of covpipe's MDM (AIRM, Karcher means) and
             SteinSRC (the cli mode's) against pyRiemann's MDM
             (metric "riemann") and TSclassifier (tangent space at the
             Riemannian mean, scikit-learn's LogisticRegression), each
             --repeats times, in alternating order. pyRiemann must be
             importable (PYTHONPATH); it is not a dependency of covpipe.

Each mode prints the per-pose accuracies and the stage times (imports:
NumPy, covpipe and scikit-learn, from the interpreter's start); pyriemann
also prints, in the benchmark format of docs/bench/sitting.sh, a line per
timed fit, predict and both (BenchmarkPython/NAME/fit 1 SECONDS wall-s),
each run's ratio of pyRiemann's time to covpipe's (BenchmarkRatio/...),
and each classifier's average accuracy (BenchmarkPython/NAME/accuracy 1
PERCENT %). It writes nothing. Run with Debian's interpreter and covpipe's package on the path:

    python/build.sh
    PYTHONPATH=python /usr/bin/python3 docs/bench/feret_python.py cli --data ../shared/datasets/feret-b-32
"""
import time

START = time.perf_counter()

import argparse  # noqa: E402 (after START: the imports are timed)
import os  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

import covpipe  # noqa: E402

CORE = "--core" in sys.argv  # covpipe.fit: no scikit-learn to import
if not CORE:
    from covpipe.sklearn import MDM, SteinSRC  # noqa: E402 (imports scikit-learn)

IMPORTS = time.perf_counter() - START

TRAIN_POSES = ("ba", "bj", "bk")
TEST_POSES = ("bg", "bf", "be", "bd")
CONFIG_SEED, CONFIG_FOLDS = 1, 3  # configs/feret.yaml: seed, folds


def describe(folder):
    """The faces' descriptors with configs/feret.yaml's data section, their
    subjects, poses and positions in the dataset's listing."""
    X, rows = covpipe.describe("feret:" + folder, features="face", ridge=1e-4, ridge_kind="trace-ridge")
    names = [os.path.basename(r["path"]) for r in rows]
    return X, np.array([r["label"] for r in rows]), np.array([n[5:7] for n in names]), np.array(
        [r["index"] for r in rows])


def rsr_cli(train_positions):
    """configs/feret.yaml's rsr entry, its folds drawn as covpipe fit
    --config draws them on these training images."""
    return SteinSRC(sigma=0.5, lambda_ratio=[0.05, 0.1, 0.2, 0.4], tolerance=1e-4, folds=CONFIG_FOLDS,
                    seed=covpipe.fold_seed(CONFIG_SEED, train_positions))


def accuracies(pred, truth, poses):
    """Accuracy (%) on each test pose and their average."""
    accs = {p: 100 * np.mean(pred[poses == p] == truth[poses == p]) for p in TEST_POSES}
    accs["average"] = np.mean([accs[p] for p in TEST_POSES])
    return accs


def show(title, accs, times):
    print(title)
    for k, v in accs.items():
        print(f"  {k}: {v:6.2f} %")
    print("time (s): " + ", ".join(f"{k} {v:.3f}" for k, v in times.items()))


def split(X, y, poses, positions):
    tr = np.isin(poses, TRAIN_POSES)
    te = np.isin(poses, TEST_POSES)
    return (np.ascontiguousarray(X[tr]), y[tr], positions[tr]), (np.ascontiguousarray(X[te]), y[te], poses[te])


def run_sklearn(make, data):
    """Fits make() on the training poses and predicts the test poses:
    accuracies, fit and predict seconds."""
    (Xtr, ytr, pos), (Xte, yte, pte) = data
    t0 = time.perf_counter()
    clf = make(pos).fit(Xtr, ytr)
    t1 = time.perf_counter()
    pred = clf.predict(Xte)
    t2 = time.perf_counter()
    return accuracies(pred, yte, pte), t1 - t0, t2 - t1, clf


def run_core(data):
    """The cli mode's fit and prediction with covpipe.fit and Model.predict."""
    (Xtr, ytr, pos), (Xte, yte, pte) = data
    t0 = time.perf_counter()
    model = covpipe.fit(Xtr, ytr, "rsr", params={"sigma": 0.5, "lambda_ratio": [0.05, 0.1, 0.2, 0.4],
                                                 "tolerance": 1e-4},
                        folds=CONFIG_FOLDS, seed=covpipe.fold_seed(CONFIG_SEED, pos))
    t1 = time.perf_counter()
    pred = model.predict(Xte).label
    t2 = time.perf_counter()
    return accuracies(pred, yte, pte), t1 - t0, t2 - t1, model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("cli", "numpy", "pyriemann"))
    ap.add_argument("--data", required=True, help="the feret-b-32 folder of 32x32 SSSSSxx.png faces")
    ap.add_argument("--repeats", type=int, default=3, help="pyriemann: timed runs of each classifier")
    ap.add_argument("--core", action="store_true",
                    help="cli: fit with covpipe.fit and answer with Model.predict, without scikit-learn "
                         "(whose import is a fixed cost of a few tenths of a second)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    X, y, poses, positions = describe(args.data)
    t_describe = time.perf_counter() - t0
    data = split(X, y, poses, positions)
    if args.mode == "cli" and args.core:
        accs, fit, predict, model = run_core(data)
        show(f"FERET RSR from Python (covpipe {covpipe.__version__}, covpipe.fit), configs/feret.yaml's rsr, "
             f"chosen {model.chosen}", accs, {"imports": IMPORTS, "describe": t_describe, "fit": fit,
                                               "predict": predict, "total": time.perf_counter() - START})
    elif args.mode == "cli":
        accs, fit, predict, clf = run_sklearn(rsr_cli, data)
        show(f"FERET RSR from Python (covpipe {covpipe.__version__}), configs/feret.yaml's rsr, chosen {clf.chosen_}",
             accs, {"imports": IMPORTS, "describe": t_describe, "fit": fit, "predict": predict,
                    "total": time.perf_counter() - START})
    elif args.mode == "numpy":
        accs, fit, predict, _ = run_sklearn(lambda _: SteinSRC(sigma=0.5, lambda_=0.1, tolerance=1e-4), data)
        show(f"FERET RSR from Python (covpipe {covpipe.__version__}), sigma 0.5, lambda 0.1", accs,
             {"imports": IMPORTS, "describe": t_describe, "fit": fit, "predict": predict,
              "total": time.perf_counter() - START})
    else:
        compare(data, args.repeats)


def compare(data, repeats):
    """covpipe's MDM and SteinSRC against pyRiemann's MDM and TSclassifier
    on the same descriptors, alternating."""
    import pyriemann
    from pyriemann.classification import MDM as PyMDM, TSclassifier

    contenders = {
        "covpipe-mdm": lambda _: MDM(metric="airm"),
        "pyriemann-mdm": lambda _: PyMDM(metric="riemann"),
        "covpipe-rsr": rsr_cli,
        "pyriemann-tsclassifier": lambda _: TSclassifier(),
    }
    print(f"FERET-32 descriptors (43x43) of covpipe {covpipe.__version__}: covpipe against pyRiemann "
          f"{pyriemann.__version__}, NumPy {np.__version__}, {repeats} runs each, alternating")
    order = list(contenders)
    accs, totals = {}, {name: [] for name in order}
    for r in range(repeats):
        for name in order if r % 2 == 0 else order[::-1]:
            accs[name], fit, predict, _ = run_sklearn(contenders[name], data)
            totals[name].append(fit + predict)
            print(f"BenchmarkPython/{name}/fit 1 {fit:.4f} wall-s")
            print(f"BenchmarkPython/{name}/predict 1 {predict:.4f} wall-s")
            print(f"BenchmarkPython/{name}/total 1 {fit + predict:.4f} wall-s", flush=True)
    # Each run's ratio of fit + predict times, the slower over covpipe's.
    for slow, fast in (("pyriemann-mdm", "covpipe-mdm"), ("pyriemann-tsclassifier", "covpipe-mdm"),
                       ("pyriemann-tsclassifier", "covpipe-rsr")):
        for a, b in zip(totals[slow], totals[fast]):
            print(f"BenchmarkRatio/{slow}-vs-{fast} 1 {a / b:.4f} ×")
    for name in order:
        print(f"# accuracy {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in accs[name].items()))
        print(f"BenchmarkPython/{name}/accuracy 1 {accs[name]['average']:.2f} %")


if __name__ == "__main__":
    main()
