"""
Boosted IMMIGRATE (BIM) against a single IMMIGRATE
==================================================

BIM (Zhao et al. 2020, Algorithm 3) runs AdaBoost over IMMIGRATE learners whose
kernel width ``sigma`` falls from ``sigma_max`` to ``sigma_min``: early
learners see the global structure, later ones local neighbourhoods. This
example compares the test accuracy of a single IMMIGRATE with BIM as the
number of boosting rounds grows, on the breast-cancer data shipped with
scikit-learn.
"""

# %%
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from localselect import BoostedImmigrate, Immigrate

X, y = load_breast_cancer(return_X_y=True)
X = X[:, :10]  # the ten "mean" features keep the example fast
X_train, X_test, y_train, y_test = train_test_split(
    X, y, train_size=150, stratify=y, random_state=0
)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)

single = Immigrate(sigma=1.0, random_state=0).fit(X_train, y_train)
rounds = [1, 2, 5, 10]
scores = [
    BoostedImmigrate(n_estimators=n, max_iter=3, random_state=0)
    .fit(X_train, y_train)
    .score(X_test, y_test)
    for n in rounds
]
print("IMMIGRATE:", round(single.score(X_test, y_test), 3))
print("BIM:", {n: round(float(s), 3) for n, s in zip(rounds, scores)})

# %%
fig, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
ax.plot(rounds, scores, "o-", label="BIM")
ax.axhline(single.score(X_test, y_test), ls="--", color="k", label="IMMIGRATE")
ax.set(xlabel="boosting rounds (n_estimators)", ylabel="test accuracy")
ax.legend()
plt.show()
