"""Write corelearn_mixed.json: mixed tables and CORElearn's Relief-family scores.

Run from this folder with R, CORElearn, MASS and ggplot2 installed (see
corelearn_mixed.R): ``python make_corelearn_mixed.py``. With a continuous
target: three generated tables (one with continuous features, so no distance
ties; two of small integers, full of ties, one of them without factors or
missing values) and four real ones (MASS ``birthwt`` and ``Cars93``, ggplot2
``mpg``, R's ``airquality``), most with factors and missing values. With class
labels (complete tables): a generated one without ties, MASS ``birthwt``
(``low``) and ggplot2 ``mpg`` (``drv``).
The JSON holds each table in full (level codes for the factors, ``null`` for a
missing value), the exact R command of every run and its scores.
"""

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent
#: (estimator, k, sigma, numAttrProportionEqual, numAttrProportionDifferent)
RUNS = [
    ("RReliefFequalK", 10, 20.0, 0.0, 1.0),
    ("RReliefFexpRank", 70, 20.0, 0.0, 1.0),
    ("RReliefFexpRank", 15, 4.0, 0.0, 1.0),
    ("RReliefFequalK", 10, 20.0, 0.04, 0.1),
]
#: Runs on class labels (complete tables): CORElearn's ReliefF with k equal neighbours.
CLASS_RUNS = [("ReliefFequalK", 10, 20.0, 0.0, 1.0), ("ReliefFequalK", 3, 20.0, 0.0, 1.0)]
REAL = {
    "birthwt": ["race", "smoke", "ht", "ui"],
    "Cars93": ["Type", "AirBags", "DriveTrain", "Cylinders", "Man.trans.avail", "Origin"],
    "mpg": ["manufacturer", "trans", "drv", "fl", "class"],
    "airquality": ["Month"],
    "birthwt_low": ["race", "smoke", "ht", "ui"],
    "mpg_drv": ["manufacturer", "trans", "fl", "class"],
}
#: The tables with class labels (their target is read as a factor).
CLASS_TABLES = {"generated_classes", "birthwt_low", "mpg_drv"}


def generated():
    """Two tables with a continuous target: continuous features, and integer ones."""
    rng = np.random.default_rng(20261128)
    n = 120
    f1 = rng.choice(["a", "b", "c"], n)
    f2 = rng.choice(["u", "v", "w", "z"], n)
    x = rng.normal(size=(n, 3))
    y = (
        2 * x[:, 0]
        + np.where(f1 == "a", 1.5, 0.0)
        + np.sin(2 * x[:, 1])
        + 0.2 * rng.normal(size=n)
    )
    d1 = pd.DataFrame({"x0": x[:, 0], "f1": f1, "x1": x[:, 1], "f2": f2, "x2": x[:, 2], "y": y})
    d1.loc[rng.random(n) < 0.08, "x1"] = np.nan
    d1.loc[rng.random(n) < 0.08, "f2"] = None
    n = 150
    g = rng.choice(["p", "q", "r", "s", "t"], n)
    b = rng.choice(["yes", "no"], n)
    z = rng.integers(0, 5, size=(n, 3)).astype(float)
    y = z[:, 0] + (g == "p") * 2.0 + (b == "yes") + 0.3 * rng.normal(size=n)
    d2 = pd.DataFrame({"g": g, "z0": z[:, 0], "z1": z[:, 1], "b": b, "z2": z[:, 2], "y": y})
    d2.loc[rng.random(n) < 0.06, "z1"] = np.nan
    d2.loc[rng.random(n) < 0.06, "g"] = None
    n = 100
    z = rng.integers(0, 4, size=(n, 4)).astype(float)
    y = z[:, 0] - z[:, 1] * z[:, 2] / 3 + 0.2 * rng.normal(size=n)
    d3 = pd.DataFrame({"z0": z[:, 0], "z1": z[:, 1], "z2": z[:, 2], "z3": z[:, 3], "y": y})
    n = 120
    f1 = rng.choice(["a", "b", "c"], n)
    f2 = rng.choice(["u", "v"], n)
    x = rng.normal(size=(n, 3))
    label = np.where(x[:, 0] + (f1 == "a") + 0.5 * rng.normal(size=n) > 0.5, "p", "q")
    d4 = pd.DataFrame(
        {"x0": x[:, 0], "f1": f1, "x1": x[:, 1], "f2": f2, "x2": x[:, 2], "y": label}
    )
    return {
        "generated_classes": (d4, ["f1", "f2"]),
        "generated_continuous": (d1, ["f1", "f2"]),
        "generated_ties": (d2, ["g", "b"]),
        "generated_integers": (d3, []),
    }


def encode(d, factors):
    """The table as numbers: level codes (sorted levels) for the factors, NaN when missing."""
    cols, levels = [], {}
    for name in d.columns[:-1]:
        if name in factors:
            labels = sorted(str(v) for v in d[name].dropna().unique())
            levels[name] = labels
            codes = d[name].map({lab: float(i) for i, lab in enumerate(labels)}.get)
            cols.append(codes.astype(float).to_numpy())
        else:
            cols.append(d[name].astype(float).to_numpy())
    return np.column_stack(cols), levels


def score(csv, factors, run):
    est, k, sigma, equal, different = run
    cmd = [
        "Rscript",
        "corelearn_mixed.R",
        "score",
        csv.name,
        ",".join(factors) or "-",
        est,
        str(k),
        str(sigma),
        str(equal),
        str(different),
    ]
    res = subprocess.run(
        [*cmd[:3], str(csv), *cmd[4:]], capture_output=True, text=True, check=True, cwd=HERE
    )
    lines = res.stdout.strip().split("\n")
    return cmd, [float(v) for v in lines[:-1]], float(lines[-1].split()[1])


def main():
    out = {"corelearn_version": "1.57.3.1", "tables": {}}
    with tempfile.TemporaryDirectory() as tmp:
        tables = generated()
        for name in REAL:
            csv = Path(tmp) / f"{name}.csv"
            subprocess.run(
                ["Rscript", "corelearn_mixed.R", "export", name, str(csv)], check=True, cwd=HERE
            )
            d = pd.read_csv(
                csv, na_values=["NA"], keep_default_na=False, dtype={f: str for f in REAL[name]}
            )
            if name in CLASS_TABLES:
                d["y"] = d["y"].astype(str)
            tables[name] = (d, REAL[name])
        for name, (d, factors) in tables.items():
            csv = Path(tmp) / f"{name}.csv"
            d.to_csv(csv, index=False, na_rep="NA")
            X, levels = encode(d, factors)
            entry = {
                "source": "generated" if name.startswith("generated") else "R",
                "columns": list(d.columns[:-1]),
                "nominal": [c in factors for c in d.columns[:-1]],
                "levels": levels,
                "X": [[None if np.isnan(v) else v for v in row] for row in X.tolist()],
                "task": "classification" if name in CLASS_TABLES else "regression",
                "y": (
                    d["y"].astype(str) if name in CLASS_TABLES else d["y"].astype(float)
                ).tolist(),
                "scores": [],
            }
            for run in CLASS_RUNS if name in CLASS_TABLES else RUNS:
                cmd, weights, seconds = score(csv, factors, run)
                entry["scores"].append(
                    {
                        "command": " ".join(cmd),
                        "estimator": run[0],
                        "k": run[1],
                        "sigma": run[2],
                        "numeric_equal": run[3],
                        "numeric_different": run[4],
                        "weights": weights,
                        "seconds": seconds,
                    }
                )
            out["tables"][name] = entry
    (HERE / "corelearn_mixed.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
