import os
import shutil
import subprocess

import numpy as np
import pytest

import covpipe.sklearn as cs


# Every method type with its command-line flags and the same estimator,
# on 3×3 descriptors of features I, Ix, Iy (the registry's examples);
# the last field names the fixture whose images suit it.
CASES = [
    ("rsr", ["--sigma", "0.5,1", "--lambda-ratio", "0.1"], lambda: cs.SteinSRC(sigma=[0.5, 1], lambda_ratio=0.1), "images"),
    ("logE-SR", ["--lambda", "0.01,0.1"], lambda: cs.LogESR(lambda_=[0.01, 0.1]), "images"),
    ("mdm", ["--metric", "airm"], lambda: cs.MDM(metric="airm"), "images"),
    ("fgmdm", [], lambda: cs.FgMDM(), "images"),
    ("tangent-space", ["-c", "0.5,5"], lambda: cs.TangentSpace(c=[0.5, 5]), "images"),
    ("nn", ["--metric", "stein"], lambda: cs.NearestNeighbour(metric="stein"), "images"),
    ("rlpp", ["--sigma", "0.5,1"], lambda: cs.RLPP(sigma=[0.5, 1]), "images"),
    ("stein-svm", ["--sigma", "1", "-c", "1,10"], lambda: cs.SteinSVC(sigma=1, c=[1, 10]), "images"),
    ("tsc", ["--lambda", "0.1"], lambda: cs.TSC(lambda_=0.1), "images"),
    ("codes", ["--dictionary", "kmeans", "--sigma", "1", "--lambda-ratio", "0.05", "--atoms", "6"],
     lambda: cs.SparseCoder(dictionary="kmeans", sigma=1, lambda_ratio=0.05, atoms=6), "images"),
    ("pca-src", ["--dims", "5", "--lambda", "0.01,0.1"], lambda: cs.PCASRC(dims=5, lambda_=[0.01, 0.1]), "images"),
    ("gsr", ["--dims", "5", "--lambda-ratio", "0.1"], lambda: cs.GaborSRC(dims=5, lambda_ratio=0.1), "images"),
    ("sdalf", ["--mask", "border", "--step", "1"], lambda: cs.SDALF(mask="border", step=1), "people"),
    ("hpe", ["--mask", "border", "--step", "1", "--locals", "3"], lambda: cs.HPE(mask="border", step=1, locals=3), "people"),
]


def spd_data(n, d=4, classes=3, seed=0):
    """n SPD matrices per class around class base points, and labels."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for c in range(classes):
        base = np.diag(np.exp(rng.normal(0, 1, d)))
        for _ in range(n):
            A = rng.standard_normal((d, 3 * d)) * 0.5
            X.append(base + A @ A.T / (3 * d))
            y.append(c)
    return np.ascontiguousarray(X), np.array(y)


@pytest.fixture
def data():
    return spd_data(12)


def write_pnm(path, img):
    """Writes img, (h, w) grey or (h, w, 3) colour levels, as a PGM or PPM."""
    img = np.clip(img, 0, 255).astype(np.uint8)
    with open(path, "wb") as f:
        f.write(b"P%d\n%d %d\n255\n" % (5 if img.ndim == 2 else 6, img.shape[1], img.shape[0]))
        f.write(img.tobytes())


@pytest.fixture(scope="session")
def images(tmp_path_factory):
    """A folder of three class folders of textured 24×24 grey images."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(1)
    for c, name in enumerate(["horizontal", "vertical", "speckle"]):
        os.mkdir(root / name)
        for i in range(8):
            noise = rng.uniform(0, 255, (24, 24))
            if c == 0:
                noise = (noise + np.roll(noise, 1, 1) + np.roll(noise, 2, 1)) / 3
            elif c == 1:
                noise = (noise + np.roll(noise, 1, 0) + np.roll(noise, 2, 0)) / 3
            write_pnm(root / name / ("%02d.pgm" % i), noise)
    return str(root)


@pytest.fixture(scope="session")
def people(tmp_path_factory):
    """A folder of three class folders of six drawn people each, 32×64
    colour images (a head, a shirt and trousers of the class's colours on
    grey, shifted and noisy), as the re-identification methods take."""
    root = tmp_path_factory.mktemp("people")
    rng = np.random.default_rng(2)
    clothes = [((0.1, 0.2, 0.8), (0.4, 0.25, 0.1)), ((0.8, 0.1, 0.1), (0.1, 0.1, 0.1)),
               ((0.9, 0.9, 0.2), (0.1, 0.2, 0.8))]
    for c, (shirt, trousers) in enumerate(clothes):
        os.mkdir(root / ("id%d" % c))
        for i in range(6):
            img = np.full((64, 32, 3), 0.5)
            s = rng.integers(0, 3)
            img[5:13, 12 + s:19 + s] = (0.9, 0.7, 0.6)
            img[13:37, 8 + s:23 + s] = shirt
            img[37:61, 10 + s:21 + s] = trousers
            img += rng.normal(0, 0.05, img.shape)
            write_pnm(root / ("id%d" % c) / ("%02d.ppm" % i), 255 * img)
    return str(root)


@pytest.fixture(scope="session")
def cli():
    """Runs the covpipe command ($COVPIPE_BIN, else covpipe on $PATH)."""
    exe = os.environ.get("COVPIPE_BIN") or shutil.which("covpipe")
    if not exe:
        pytest.skip("no covpipe command: set COVPIPE_BIN (python/test.sh builds one)")

    def run(*args):
        return subprocess.run([exe, *map(str, args)], check=True, capture_output=True, text=True).stdout

    return run
