"""
Where each feature matters: regimes of GP subspaces
===================================================

``make_subspace_classification`` (the GP paper's Algorithm 3) places clusters
in regions of the input, each separable in its own feature subspace, and
returns every row's relevant subspace. :func:`~localselect.regimes.find_regimes`
groups the rows by the subspaces
:class:`~localselect.GPLocalFeatureSelection` chooses for them and
:func:`~localselect.plotting.plot_regimes` draws the regimes. On this small
table GP's per-query subspaces are noisy (precision and recall near 0.5 in the
subspace-recovery example), so the regimes match the true groups only in part:
the adjusted Rand index printed below is the honest measure of how much.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import adjusted_rand_score

from localselect import GPLocalFeatureSelection
from localselect.datasets import make_subspace_classification
from localselect.plotting import plot_regimes
from localselect.regimes import find_regimes

X, y, relevant = make_subspace_classification(
    240, n_features=12, n_classes=3, n_subspaces=4, subspace_size=(2, 4), random_state=0
)
clf = GPLocalFeatureSelection(n_neighbors=8, random_state=0).fit(X, y)
regimes = find_regimes(clf, X, y, random_state=0)
truth = np.unique(relevant, axis=0, return_inverse=True)[1].ravel()
print(regimes.describe())
ari = adjusted_rand_score(truth, regimes.labels)
print(f"adjusted Rand index against the true groups: {ari:.2f}")
for subset in np.unique(relevant, axis=0):
    print("a true subspace:", [f"x{j}" for j in np.flatnonzero(subset)] or "none (noise rows)")

# %%
# The where figure
# ----------------
plot_regimes(regimes, X, fig=plt.figure())
plt.show()
