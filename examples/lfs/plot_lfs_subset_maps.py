"""
LFS subset maps: which features each region selects
===================================================

The synthetic design of the LFS paper (Armanfard et al. 2016, Sec. 5.1): two
classes, each made of sub-classes, where ``x0`` separates the classes in some
regions of the sample space, ``x1`` in others and both in the rest; every other
feature is noise. A global selector has to keep both features everywhere; LFS
learns one subset per training sample (per region).

This example draws, as in the paper's Figs. 4 and 5, the subsets of a few
representatives against the subsets the generator says are relevant, and how
often each feature is selected over all regions.
"""

# %%
# Data and model
# --------------
# ``make_lfs_synthetic`` returns the per-sample relevant-feature mask with the
# data. A small ``alpha`` (at most two features per region) matches the design.
import matplotlib.pyplot as plt

from localselect import LocalFeatureSelection
from localselect.datasets import make_lfs_synthetic
from localselect.plotting import (
    plot_feature_recovery,
    plot_local_subspaces,
    plot_selection_frequency,
)

X, y, relevant = make_lfs_synthetic(80, n_irrelevant=8, random_state=0)
lfs = LocalFeatureSelection(max_features=2, max_iter=2, random_state=0).fit(X, y)
print("subsets:", lfs.local_support_.shape, "mean size:", lfs.local_support_.sum(1).mean())

# %%
# Subsets of the first representatives
# -------------------------------------
# One row per training sample, one column per feature: the subset LFS chose
# (left) and the hits, misses and false alarms against the known relevant
# features (right).
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
plot_local_subspaces(lfs, n_samples=15, sample_labels=y[:15], ax=axes[0], title="LFS subsets")
plot_feature_recovery(relevant, lfs, n_samples=15, ax=axes[1])
plt.show()

# %%
# Selection frequency (the paper's Fig. 5)
# ----------------------------------------
# The fraction of regions that select each feature; the two relevant features
# are highlighted. The noise features are almost never chosen.
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
plot_selection_frequency(lfs, highlight=[0, 1], ax=ax)
plt.show()

# %%
# Classification
# --------------
# LFS is also a classifier (eq. (11)): a query is labelled by the regions whose
# spheres hold it, each looking only at its own features.
X_test, y_test, _ = make_lfs_synthetic(80, n_irrelevant=8, random_state=1)
print(f"test accuracy: {lfs.score(X_test, y_test):.2f}")
