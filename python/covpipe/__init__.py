"""covpipe from Python: region covariance descriptors of images and
recognisers on them (Harandi et al., ECCV 2012), through covpipe's Go
library (libcovpipe, loaded with ctypes; NumPy is the only dependency,
scikit-learn is optional for covpipe.sklearn).

    X, rows = covpipe.describe("images/", features="texture")
    D = covpipe.distance(X, metric="airm")
    M = covpipe.mean(X, metric="stein")
    K = covpipe.stein_kernel(X, X, sigma=2)
    model = covpipe.load_model("model/")       # covpipe fit's folder
    answers = model.predict(X)

covpipe.sklearn holds scikit-learn estimators of every method type.
"""

from ._abi import Cancelled, CovpipeError, Token
from ._core import (Model, Predictions, describe, distance, fit, fold_seed, load_model, mean, method_spec, registry,
                    stein_kernel)

__all__ = ["Cancelled", "CovpipeError", "Model", "Predictions", "Token", "describe", "distance", "fit", "fold_seed",
           "load_model", "mean", "method_spec", "registry", "stein_kernel"]

__version__ = registry()["version"]
