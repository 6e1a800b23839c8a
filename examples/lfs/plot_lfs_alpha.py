"""
LFS: test error and subset size against alpha
=============================================

``max_features`` (the paper's ``alpha``) bounds the number of features each
region may select (the constraint ``1 <= sum(f) <= alpha`` of LP (9)). The LFS paper picks it by
cross-validation and shows the error and the mean subset size against it
(Figs. 6 and 7). This example does the same on the paper's synthetic design
with few samples, so it runs in seconds.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from localselect import LocalFeatureSelection
from localselect.datasets import make_lfs_synthetic
from localselect.plotting import plot_cardinality_vs_alpha, plot_error_vs_alpha

X_train, y_train, _ = make_lfs_synthetic(60, n_irrelevant=10, random_state=0)
X_test, y_test, _ = make_lfs_synthetic(100, n_irrelevant=10, random_state=1)

alphas = [1, 2, 4, 8]
errors, sizes = [], []
for alpha in alphas:
    lfs = LocalFeatureSelection(max_features=alpha, max_iter=1, random_state=0).fit(
        X_train, y_train
    )
    errors.append(1 - lfs.score(X_test, y_test))
    sizes.append(lfs.local_support_.sum(axis=1).mean())
print("test error:", np.round(errors, 3))
print("mean subset size:", np.round(sizes, 2))

# %%
# With ``max_features=1`` a region whose classes differ in both relevant features
# can use only one of them; from ``max_features=2`` the error is low and flat
# while the subsets keep growing slowly (the LP may take a noise feature when it
# helps a region's margin), the shape of the paper's curves on its synthetic data.
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
plot_error_vs_alpha(alphas, errors, ax=axes[0], title="test error (Fig. 6)")
plot_cardinality_vs_alpha(alphas, sizes, ax=axes[1], title="mean subset size (Fig. 7)")
plt.show()
