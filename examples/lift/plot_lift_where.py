"""
Where each feature matters: regimes of LLDS profiles
====================================================

A discrete table with a switch: where ``a = 0`` the class follows ``b``,
where ``a = 1`` it follows ``c``; ``d``, ``e`` and ``f`` are noise.
``LiftFeatureSelector(resolution="profiles")`` gives each row the features of
the ranked profiles with lift above 1 that it matches (Algorithm 3 of
Marcondes, Simonis and Barrera 2018); :func:`~localselect.regimes.find_regimes`
groups the rows that use the same features and
:func:`~localselect.plotting.plot_regimes` draws them. Profiles hold several
features at once, so a regime uses more than the one feature that decides its
rows; the adjusted Rand index printed below compares the regimes with the two
sides of the switch.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.metrics import adjusted_rand_score

from localselect.lift import LiftFeatureSelector
from localselect.plotting import plot_regimes
from localselect.regimes import find_regimes

rng = np.random.default_rng(0)
n = 600
X = pd.DataFrame(rng.integers(0, 2, (n, 6)), columns=["a", "b", "c", "d", "e", "f"])
logit = np.where(X["a"] == 0, 3 * (2 * X["b"] - 1), 3 * (2 * X["c"] - 1))
y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)

selector = LiftFeatureSelector(resolution="profiles", max_features=3, discretizer=None)
selector.fit(X, y)
regimes = find_regimes(selector, X, y, random_state=0)
print(regimes.describe(X.columns))
print(f"adjusted Rand index against a's sides: {adjusted_rand_score(X['a'], regimes.labels):.2f}")

# %%
# The where figure
# ----------------
plot_regimes(regimes, X.to_numpy(dtype=float), feature_names=X.columns, fig=plt.figure())
plt.show()
