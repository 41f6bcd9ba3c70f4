import os
import shutil
import subprocess

import numpy as np
import pytest


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


def write_pgm(path, img):
    img = np.clip(img, 0, 255).astype(np.uint8)
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (img.shape[1], img.shape[0]))
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
            write_pgm(root / name / ("%02d.pgm" % i), noise)
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
