"""
LLDS lift tables: where a feature value lifts a class
=====================================================

The Local Lift Dependence Scale (Marcondes, Simonis and Barrera 2018) measures
the dependence of a class ``Y`` on discrete features ``X`` at three
resolutions. The finest is the lift of each profile ``x`` and class ``y``,
``L(x, y) = P(y | x) / P(y)`` (eq. (6)): above 1 the profile makes the class
more likely, below 1 less.

The paper's worked example is the 1984 Congressional Voting data (its Tables
5-7). This example generates a small stand-in: votes ``y`` / ``n`` (and some
missing) on six bills by two parties, where two bills follow party lines and
the others barely do. It draws the lift tables of a party-line bill and of a
pair of bills, and ranks single profiles by their lift of one party, as
``LiftFeatureSelector(resolution="profiles")`` does (Algorithm 3).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from localselect.lift import LiftFeatureSelector, dependence, lift_table
from localselect.plotting import plot_lift_table

rng = np.random.default_rng(0)
n = 300
party = rng.choice(["democrat", "republican"], size=n, p=[0.6, 0.4])
dem = party == "democrat"
# probability of a "y" vote per bill, for democrats and republicans
p_yes = {
    "budget": (0.9, 0.15),
    "aid": (0.85, 0.25),
    "water": (0.5, 0.5),
    "crime": (0.35, 0.9),
    "export": (0.6, 0.45),
    "satellite": (0.55, 0.5),
}
votes = {}
for bill, (p_dem, p_rep) in p_yes.items():
    vote = np.where(rng.random(n) < np.where(dem, p_dem, p_rep), "y", "n").astype(object)
    vote[rng.random(n) < 0.04] = None  # missing votes are left out of the counts
    votes[bill] = vote
X = pd.DataFrame(votes)

# %%
# Global dependence of each bill
# ------------------------------
# ``dependence`` is the coefficient eta(X) = I(X; Y) / H(Y) of eq. (2): 0 for
# independence, 1 when the vote determines the party.
print(pd.Series({bill: dependence(X[[bill]], party) for bill in X}).round(3))

# %%
# Lift tables
# -----------
# Rows are the profiles (vote values), columns the parties; each cell is the
# lift over its count.
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained")
plot_lift_table(lift_table(X[["budget"]], party), ax=axes[0])
plot_lift_table(lift_table(X[["budget", "crime"]], party), ax=axes[1])
plt.show()

# %%
# Profiles that lift "republican" most (Algorithm 3)
# --------------------------------------------------
# With ``min_support`` (the paper uses 0.15 on the voting data) rare profiles
# cannot win by chance.
selector = LiftFeatureSelector(
    resolution="profiles", max_features=2, min_support=0.15, target_class="republican", top_k=5
).fit(X, party)
print(selector.results_[["features", "profile", "score", "support"]].to_string(index=False))
