"""Write corelearn_rrelieff.json: two small tables and CORElearn's RReliefF scores.

Run from this folder with CORElearn installed (see corelearn_rrelieff.R):
``python make_corelearn_rrelieff.py``. The tables are continuous draws (no
distance ties); the JSON holds them in full, the exact R command and the scores.
"""

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
RUNS = [("RReliefFequalK", 5, 0.0), ("RReliefFexpRank", 20, 4.0), ("RReliefFexpRank", 70, 20.0)]


def tables():
    rng = np.random.default_rng(20240601)
    X1 = rng.normal(size=(40, 4))
    y1 = 2 * X1[:, 0] + np.sin(3 * X1[:, 1]) + 0.1 * rng.normal(size=40)
    X2 = rng.uniform(size=(80, 6))
    y2 = X2[:, 0] * X2[:, 1] + (X2[:, 2] > 0.5) + 0.05 * rng.normal(size=80)
    return {"table1": (X1, y1), "table2": (X2, y2)}


def main():
    out = {"corelearn_version": "1.57.3.1", "tables": {}}
    for name, (X, y) in tables().items():
        entry = {"X": X.tolist(), "y": y.tolist(), "scores": []}
        with tempfile.TemporaryDirectory() as tmp:
            csv = Path(tmp) / f"{name}.csv"
            cols = [f"x{i}" for i in range(X.shape[1])] + ["y"]
            rows = [",".join(f"{v:.17g}" for v in row) for row in np.column_stack([X, y])]
            csv.write_text(",".join(cols) + "\n" + "\n".join(rows) + "\n")
            for est, k, sigma in RUNS:
                cmd = ["Rscript", "corelearn_rrelieff.R", f"{name}.csv", est, str(k), str(sigma)]
                res = subprocess.run(
                    [*cmd[:2], str(csv), *cmd[3:]],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=HERE,
                )
                values = [float(v) for v in res.stdout.split("\n")[: X.shape[1]]]
                entry["scores"].append(
                    {
                        "command": " ".join(cmd),
                        "estimator": est,
                        "k": k,
                        "sigma": sigma,
                        "weights": values,
                    }
                )
        out["tables"][name] = entry
    (HERE / "corelearn_rrelieff.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
