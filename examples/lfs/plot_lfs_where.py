"""
Where each feature matters: LFS regimes on the paper's design
=============================================================

``make_lfs_synthetic`` draws two classes, each made of subclasses separated by
``x0``, by ``x1`` or by both, among noise columns: three true groups of rows,
known per row. :class:`~localselect.LocalFeatureSelection` gives each row a
subset; :func:`~localselect.regimes.find_regimes` groups the rows that use the
same features, and :func:`~localselect.plotting.plot_regimes` draws where
they are (a PCA of the columns weighted by their mean relevance) beside what
each uses. The adjusted Rand index compares the regimes with the true groups
(1 is a perfect match, 0 chance).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import adjusted_rand_score

from localselect import LocalFeatureSelection
from localselect.datasets import make_lfs_synthetic
from localselect.plotting import plot_regimes
from localselect.regimes import find_regimes

X, y, relevant = make_lfs_synthetic(300, 20, random_state=0)
lfs = LocalFeatureSelection(random_state=0).fit(X, y)
regimes = find_regimes(lfs, X, y, random_state=0)
truth = np.unique(relevant, axis=0, return_inverse=True)[1].ravel()
print(regimes.describe())
ari = adjusted_rand_score(truth, regimes.labels)
print(f"adjusted Rand index against the true groups: {ari:.2f}")

# %%
# The where figure
# ----------------
# Three regimes: one uses ``x0`` and ``x1``, one ``x0``, one ``x1``, as the
# generator's subclasses do; the 20 noise columns are used by no regime.
plot_regimes(regimes, X, fig=plt.figure())
plt.show()
