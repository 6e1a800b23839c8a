"""
The Relief family on one problem: Relief, ReliefF, I-RELIEF, Simba and IM4E
===========================================================================

The margin methods IMMIGRATE builds on each learn one weight per feature from
nearest hits and misses: Relief (Kira and Rendell 1992), ReliefF with ``k``
neighbours per class (Kononenko 1994), I-RELIEF's probabilistic neighbours
(Sun 2007), Simba's gradient ascent of the margin (Gilad-Bachrach et al.
2004) and IM4E's max-min entropy margin (Bei and Hong 2015).

On ``make_classification(shuffle=False)`` the first three features are the
informative ones; the bar charts show how each method ranks them.
"""

# %%
import warnings

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from localselect import IM4E, IRelief, Relief, ReliefF, Simba
from localselect.plotting import plot_selection_frequency

X, y = make_classification(
    n_samples=150,
    n_features=10,
    n_informative=3,
    n_redundant=0,
    n_repeated=0,
    shuffle=False,
    random_state=0,
)
X = StandardScaler().fit_transform(X)

models = {
    "Relief": Relief(n_features_to_select=3, random_state=0),
    "ReliefF": ReliefF(n_features_to_select=3),
    "I-RELIEF": IRelief(n_features_to_select=3),
    "Simba": Simba(n_features_to_select=3, max_iter=5),
    "IM4E": IM4E(n_features_to_select=3, max_iter=50),
}
fig, axes = plt.subplots(1, len(models), figsize=(15, 3.2), layout="constrained")
for ax, (name, model) in zip(axes, models.items()):
    with warnings.catch_warnings():
        # Simba's per-sample gradient steps keep moving w by more than ``tol``
        # on this data; five passes already rank the features.
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    print(f"{name:9s} selects {model.get_support(indices=True)}")
    plot_selection_frequency(model, highlight=[0, 1, 2], ax=ax, title=name)
    ax.set_ylabel("weight" if ax is axes[0] else "")
plt.show()
