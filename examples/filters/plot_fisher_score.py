"""
Fisher score: the global baseline of the LFS paper
==================================================

The LFS paper's Table 1 compares LFS with a classifier on the features ranked
by the Fisher score (between-class over within-class variance of each
feature). ``FisherScore`` is that selector, usable in a scikit-learn pipeline;
``fisher_score`` is the score function, usable with ``SelectKBest``.

This example plots the scores on scikit-learn's breast-cancer data and the
cross-validated accuracy of a K-NN classifier against the number of features
kept.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from localselect import FisherScore, fisher_score
from localselect.plotting import plot_selection_frequency

data = load_breast_cancer()
X, y = data.data, data.target
scores = fisher_score(X, y)

fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
plot_selection_frequency(
    scores, feature_names=data.feature_names, top=12, ax=ax, title="Fisher score, top 12"
)
ax.set_ylabel("Fisher score")
plt.show()

# %%
# Accuracy against the number of features kept
# --------------------------------------------
kept = [1, 2, 3, 5, 8, 13, 30]
accuracy = [
    cross_val_score(
        make_pipeline(
            StandardScaler(), FisherScore(n_features_to_select=k), KNeighborsClassifier()
        ),
        X,
        y,
        cv=5,
    ).mean()
    for k in kept
]
print(dict(zip(kept, np.round(accuracy, 3).tolist())))
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.plot(kept, accuracy, "o-")
ax.set(xscale="log", xlabel="features kept", ylabel="5-fold CV accuracy (K-NN)")
plt.show()
