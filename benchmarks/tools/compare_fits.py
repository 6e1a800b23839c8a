"""Snapshot every fitted value of every estimator, or compare two snapshots.

python compare_fits.py snap OUT.pkl
python compare_fits.py diff A.pkl B.pkl
"""

from __future__ import annotations

import inspect
import pickle
import sys
import warnings

import numpy as np


def _flatten(prefix, value, out):
    if isinstance(value, (np.ndarray, np.generic, int, float, bool, str)) or value is None:
        out[prefix] = np.asarray(value) if value is not None else np.asarray("None")
    elif isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}[{k!r}]", v, out)
    elif isinstance(value, (list, tuple)):
        if hasattr(value, "_fields"):
            for k in value._fields:
                _flatten(f"{prefix}.{k}", getattr(value, k), out)
        else:
            for i, v in enumerate(value):
                _flatten(f"{prefix}[{i}]", v, out)
    elif hasattr(value, "__dict__") and type(value).__module__.startswith(
        ("localselect", "sklearn")
    ):
        for k, v in sorted(vars(value).items()):
            if k.endswith("_") or type(value).__module__.startswith("localselect"):
                _flatten(f"{prefix}.{k}", v, out)
    elif hasattr(value, "_asdict"):
        _flatten(prefix, value._asdict(), out)


def tables():
    from sklearn.datasets import make_classification

    X, y = make_classification(160, 8, n_informative=3, n_redundant=0, random_state=0)
    yield "bin", X[:120], y[:120], X[120:]
    X, y = make_classification(
        180, 7, n_informative=4, n_redundant=0, n_classes=3, n_clusters_per_class=1, random_state=1
    )
    yield "tri", X[:140], y[:140], X[140:]


def snap(path):
    from localselect.utils import all_estimators, fast_params

    out = {}
    for name, cls in all_estimators():
        sig = inspect.signature(cls)
        configs = [("demo", fast_params(name, "demo")), ("check", fast_params(name, "check"))]
        if "n_features_to_select" in sig.parameters and name not in ("LocalFeatureSelection",):
            configs.append(("auto", {**fast_params(name, "demo"), "n_features_to_select": "auto"}))
        for cname, params in configs:
            if "random_state" in sig.parameters:
                params = {**params, "random_state": 0}
            for tname, X, y, Xt in tables():
                key = f"{name}/{cname}/{tname}"
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        est = cls(**params).fit(X, y)
                    except Exception as exc:  # record failures too
                        out[f"{key}/error"] = np.asarray(repr(exc)[:200])
                        continue
                    vals = {}
                    for attr, v in sorted(vars(est).items()):
                        if attr.endswith("_") and not attr.startswith("_"):
                            _flatten(attr, v, vals)
                    for meth in ("get_support",):
                        if hasattr(est, meth):
                            try:
                                vals[meth] = np.asarray(getattr(est, meth)())
                            except Exception as exc:
                                vals[meth] = np.asarray(repr(exc)[:100])
                    for meth in (
                        "transform",
                        "predict",
                        "predict_proba",
                        "get_local_support",
                        "local_relevance",
                        "decision_function",
                    ):
                        if hasattr(est, meth):
                            try:
                                vals[meth] = np.asarray(getattr(est, meth)(Xt))
                            except Exception as exc:
                                vals[meth] = np.asarray(repr(exc)[:100])
                for k, v in vals.items():
                    out[f"{key}/{k}"] = v
        print(name, "done", flush=True)
    with open(path, "wb") as fh:
        pickle.dump(out, fh)
    print(len(out), "values")


def _eq(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    if a.dtype.kind == "O":
        return all(_eq(x, y) for x, y in zip(a.ravel(), b.ravel(), strict=True))
    return bool(np.array_equal(a, b))


def diff(pa, pb):
    with open(pa, "rb") as fa, open(pb, "rb") as fb:
        a, b = pickle.load(fa), pickle.load(fb)
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    differ = [k for k in sorted(set(a) & set(b)) if not _eq(a[k], b[k])]
    print(
        f"{len(set(a) & set(b))} common values, {len(differ)} differ, "
        f"{len(only_a)} only in A, {len(only_b)} only in B"
    )
    for k in differ[:40]:
        print("DIFFER", k)
    for k in only_a[:40]:
        print("ONLY A", k)
    for k in only_b[:40]:
        print("ONLY B", k)
    return 1 if differ or only_a or only_b else 0


if __name__ == "__main__":
    if sys.argv[1] == "snap":
        snap(sys.argv[2])
    else:
        sys.exit(diff(sys.argv[2], sys.argv[3]))
