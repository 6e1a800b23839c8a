"""
mRMR against the Fisher score on redundant features
===================================================

The LFS paper's Table 1 also compares against mRMR (Peng, Long and Ding 2005):
features are added greedily by relevance to the class minus their mean
redundancy with the features already chosen (the MID criterion, mutual
information on features discretised into three states). A univariate score
such as the Fisher score ranks each feature alone, so it keeps copies of the
same information.

Here three informative features come with two exact copies each; the rest is
noise. The Fisher score's top five are copies of the two strongest features;
mRMR takes each of them once and then prefers new columns, because a copy adds
no information about the class it does not already have.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from localselect.filters import MRMR, FisherScore

X, y = make_classification(
    n_samples=300,
    n_features=6,
    n_informative=3,
    n_redundant=0,
    n_repeated=0,
    shuffle=False,
    random_state=0,
)
X = np.c_[X, X[:, :3], X[:, :3]]  # columns 6-11 copy the informative 0-2
names = [f"x{j}" for j in range(6)] + [f"x{j}'" for j in range(3)] + [f"x{j}''" for j in range(3)]

for selector in (FisherScore(n_features_to_select=5), MRMR(n_features_to_select=5)):
    chosen = selector.fit(X, y).get_support(indices=True)
    print(f"{type(selector).__name__:12s} keeps", [names[j] for j in chosen])

# %%
# Accuracy against the number of features kept
# --------------------------------------------
kept = [1, 2, 3, 4, 6]
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for make in (FisherScore, MRMR):
    accuracy = [
        cross_val_score(
            make_pipeline(StandardScaler(), make(n_features_to_select=k), KNeighborsClassifier()),
            X,
            y,
            cv=5,
        ).mean()
        for k in kept
    ]
    ax.plot(kept, accuracy, "o-", label=make.__name__)
ax.set(xlabel="features kept", ylabel="5-fold CV accuracy (K-NN)")
ax.legend()
plt.show()
