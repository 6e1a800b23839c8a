"""Fit LFSpy (the public Python port of LFS) on arrays saved with ``numpy.savez``.

Run by path, ``python _lfspy_fit.py DATA.npz``, with an interpreter that has
LFSpy 1.0.4, numpy < 2 and scipy < 1.11 (``linprog`` with
``method="interior-point"``); that environment cannot import localselect, so
this file imports nothing of it. Prints one JSON object ``{"fit_seconds",
"test_accuracy"}`` (``localselect bench lfs-perf``).
"""

import json
import sys
import time

import numpy as np


def main(path: str) -> None:
    """Fit on ``X_train, y_train`` of ``path``, score on ``X_test, y_test``, print JSON."""
    from LFSpy import LocalFeatureSelection

    d = np.load(path)
    est = LocalFeatureSelection(rr_seed=20)
    start = time.perf_counter()
    est.fit(d["X_train"], d["y_train"])
    fit = time.perf_counter() - start
    acc = float(np.mean(est.predict(d["X_test"]) == d["y_test"]))
    print(json.dumps({"fit_seconds": fit, "test_accuracy": acc}))


if __name__ == "__main__":
    main(sys.argv[1])
