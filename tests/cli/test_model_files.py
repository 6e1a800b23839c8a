"""Model files: skops with a trusted-type list, never a pickle."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import skops.io as sio

from localselect.base import LocalSelectorMixin
from localselect.cli import main
from localselect.cli._model_io import load_model, save_model, trusted_types
from localselect.utils import fast_estimators


class Boom:
    """Runs code while it is loaded: skops calls ``__setstate__`` to rebuild an object."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __setstate__(self, state):
        with open(state["marker"], "w") as f:  # the "attack": any code could run here
            f.write("ran")
        self.__dict__.update(state)


class PickleBoom:
    """A pickle that creates a file when loaded (``__reduce__`` names any callable)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _one_line_error(capsys, argv, *fragments):
    capsys.readouterr()
    assert main(argv) != 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("localselect: error:"), lines
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def rows(tmp_path):
    path = tmp_path / "rows.csv"
    pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.1]}).to_csv(path, index=False)
    return path


def test_a_skops_file_with_an_untrusted_type_is_refused_and_nothing_runs(tmp_path, rows, capsys):
    marker = tmp_path / "ran.txt"
    path = tmp_path / "model.skops"
    sio.dump({"format": 1, "pipeline": Boom(marker)}, path)
    _one_line_error(
        capsys, ["predict", "--model", str(path), "--input", str(rows)],
        "untrusted type", f"{__name__}.Boom",
    )  # fmt: skip
    assert not marker.exists()
    # The file really runs code when its type is trusted: the refusal is what stopped it.
    sio.load(path, trusted=[f"{__name__}.Boom"])
    assert marker.read_text() == "ran"


@pytest.mark.parametrize("name", ["model.joblib", "model.pkl"])
def test_a_pickle_is_refused_and_nothing_runs(tmp_path, rows, capsys, name):
    marker = tmp_path / "ran.txt"
    path = tmp_path / name
    path.write_bytes(pickle.dumps(PickleBoom(marker)))
    _one_line_error(
        capsys, ["predict", "--model", str(path), "--input", str(rows)],
        "not a skops model file", "never loads a pickle",
    )  # fmt: skip
    assert not marker.exists()
    # The file really runs code when unpickled: the refusal is what stopped it.
    with open(path, "rb") as f:
        pickle.load(f).close()
    assert marker.exists()
    # No flag loads it anyway: --trust-pickle is not an option of predict.
    marker.unlink()
    with pytest.raises(SystemExit):
        main(["predict", "--model", str(path), "--input", str(rows), "--trust-pickle"])
    assert not marker.exists()


def _outputs(est, X):
    out = {}
    for method in ("predict", "predict_proba", "transform"):
        if hasattr(est, method):
            out[method] = getattr(est, method)(X)
    if isinstance(est, LocalSelectorMixin):
        out["local_support"] = est.get_local_support(X)
    if hasattr(est, "get_support"):
        out["support"] = est.get_support()
    return out


@pytest.mark.parametrize(
    "est", [est for _, est in fast_estimators("check")], ids=lambda est: type(est).__name__
)
def test_every_fitted_estimator_round_trips_with_identical_outputs(est, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, "yes", "no")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    path = tmp_path / "model.skops"
    save_model({"estimator": est}, path)
    # Every type in the file is on the trusted list (load_model refuses otherwise).
    assert set(sio.get_untrusted_types(file=path)) <= trusted_types()
    loaded = load_model(path)["estimator"]
    assert type(loaded) is type(est)
    before, after = _outputs(est, X), _outputs(loaded, X)
    assert before.keys() == after.keys() and before
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)
    if isinstance(getattr(est, "results_", None), pd.DataFrame):
        pd.testing.assert_frame_equal(loaded.results_, est.results_)


def test_a_knockoff_filter_with_learnt_regions_round_trips(tmp_path):
    # The learnt regions are a tree of the filter's own (not a scikit-learn type): the
    # declaration lists it, so the model file loads.
    from localselect import LocalKnockoffFilter
    from localselect.datasets import make_instancewise_synthetic
    from localselect.utils import fast_params

    X, y, _ = make_instancewise_synthetic(800, "syn4", random_state=0)
    est = LocalKnockoffFilter(**{**fast_params("LocalKnockoffFilter", "check"), "regions": "auto"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    assert type(est.region_map_.tree).__name__ == "SwitchTree"
    path = tmp_path / "model.skops"
    save_model({"estimator": est}, path)
    loaded = load_model(path)["estimator"]
    np.testing.assert_array_equal(
        loaded.get_local_support(X[:100]), est.get_local_support(X[:100])
    )


def test_select_saves_skops_with_int_seeds_and_predict_loads_it(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    frame["cls"] = np.where(frame["a"] > 0, "x", "y")
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = ["select", "--method", "bim", "--input", str(path), "--target", "cls",
            "--random-state", "3", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert (out / "model.skops").is_file() and not (out / "model.joblib").exists()
    model = load_model(out / "model.skops")["pipeline"].named_steps["estimator"]
    assert type(model.random_state) is int
    assert all(type(round_.random_state) is int for round_ in model.estimators_)
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(path)]) == 0
    assert capsys.readouterr().out.startswith("row,prediction")
