"""Draw ``where_syn4.png``, the where figure that opens README.md and docs/index.md.

Syn4 of INVASE (``make_instancewise_synthetic(10_000, "syn4", random_state=0)``):
the label depends on x1 x2 where x11 < 0 and on x3..x6 where x11 >= 0, x11
everywhere. ``ConditionalSaliencySelection`` answers per row; ``find_regimes``
groups the rows; the figure should show two regimes, split along x11, that
use {x1, x2, x11} and {x3..x6, x11}. The title gives the adjusted Rand index
against the true row groups. Run from the repository root (about a minute)::

    OMP_NUM_THREADS=1 python docs/figures/make_where.py

and commit the PNG (100 dpi: about 85 KB).
"""

from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score

from localselect.datasets import make_instancewise_synthetic
from localselect.plotting import plot_regimes
from localselect.regimes import find_regimes
from localselect.saliency import ConditionalSaliencySelection

X, y, relevant = make_instancewise_synthetic(10_000, "syn4", random_state=0)
selector = ConditionalSaliencySelection(random_state=0).fit(X, y)
regimes = find_regimes(selector, X, y, random_state=0)
truth = np.unique(relevant, axis=0, return_inverse=True)[1].ravel()
ari = adjusted_rand_score(truth, regimes.labels)
names = [f"x{j}" for j in range(1, 12)]  # INVASE's names; the array's own are x0 .. x10
print(regimes.describe(names))
fig = plot_regimes(
    regimes,
    X,
    feature_names=names,
    title=(
        f"Syn4: {regimes.n_regimes} regimes found from ConditionalSaliencySelection's answers "
        f"(ARI {ari:.2f} against the truth)\n"
        "truth: x1, x2, x11 where x11 < 0;  x3, x4, x5, x6, x11 where x11 >= 0"
    ),
)
fig.set_size_inches(10.0, 4.4)
out = Path(__file__).with_name("where_syn4.png")
fig.savefig(out, dpi=100, pil_kwargs={"optimize": True})
print(f"wrote {out} ({out.stat().st_size // 1024} KB), ARI {ari:.3f}")
