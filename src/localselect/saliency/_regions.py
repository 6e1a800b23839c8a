"""Regions for the region-wise knockoff filter: a fixed assignment of rows learnt on other rows.

Gimenez and Zou (2019, ICML) run knockoffs within the regions of a partition
of the feature space, so that a feature relevant in one region only is null
inside the others. :class:`LocalKnockoffFilter` needs the partition fixed
before it sees the rows it filters; this module learns it on a separate split
of the training rows (or takes the user's) and assigns any row to a region by
a function of its features alone: a decision tree, or the user's callable.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from numpy.typing import NDArray
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["RegionMap", "SwitchTree", "learn_regions"]

#: Share of the training rows that learn the regions (the rest are filtered).
LEARN_FRACTION = 0.5
#: Regions of ``regions="auto"``.
AUTO_REGIONS = 2


class RegionMap:
    """A row's region as a function of its features (a tree, a callable, or one region).

    Parameters
    ----------
    tree : DecisionTreeClassifier or None
        Fitted on canonical-order columns; predicts a raw region label.
    func : callable or None
        The user's ``regions(X) -> labels`` on input-order columns.
    merge : ndarray of int
        Raw label (index into ``labels``) to region index (small regions merged).
    labels : ndarray
        The raw labels, sorted.
    """

    def __init__(self, tree=None, func=None, merge=None, labels=None):
        self.tree = tree
        self.func = func
        self.merge = np.zeros(1, np.intp) if merge is None else merge
        self.labels = np.zeros(1) if labels is None else labels

    @property
    def n_regions(self) -> int:
        """Number of regions after merging."""
        return int(self.merge.max()) + 1

    def raw(self, X_input, X_canon) -> NDArray:
        """Raw labels of rows (before merging small regions)."""
        if self.func is not None:
            out = np.asarray(self.func(X_input))
            if out.shape != (X_input.shape[0],):
                raise ValueError(
                    f"regions(X) must return one label per row, shape ({X_input.shape[0]},); "
                    f"got {out.shape}."
                )
            return out
        if self.tree is not None:
            return self.tree.predict(X_canon)
        return np.zeros(X_input.shape[0])

    def assign(self, X_input, X_canon) -> NDArray[np.intp]:
        """Region index of each row; a label unseen in ``fit`` goes to the largest region."""
        return self.index(self.raw(X_input, X_canon))

    def index(self, raw) -> NDArray[np.intp]:
        """Region index of raw labels."""
        pos = np.searchsorted(self.labels, raw)
        pos = np.minimum(pos, len(self.labels) - 1)
        known = self.labels[pos] == raw
        return np.where(known, self.merge[pos], self.merge[self._largest])

    def features(self) -> NDArray[np.intp]:
        """Canonical columns the tree splits on (empty for a callable or one region)."""
        if self.tree is None:
            return np.zeros(0, np.intp)
        f = self.tree.tree_.feature
        return np.unique(f[f >= 0]).astype(np.intp)

    def set_merge(self, raw_labels, min_size: int) -> None:
        """Merge regions with fewer than ``min_size`` rows among ``raw_labels``.

        The small regions are pooled into one; if that pool is still small it
        joins the largest region. ``_largest`` takes unseen labels.
        """
        self.labels, counts = np.unique(raw_labels, return_counts=True)
        small = counts < min_size
        merge = np.cumsum(~small) - 1
        if small.any():
            rest = merge.max() + 1
            if counts[small].sum() < min_size or (~small).sum() == 0:
                rest = merge[np.argmax(np.where(small, -1, counts))] if (~small).any() else 0
            merge = np.where(small, rest, merge)
        _, merge = np.unique(merge, return_inverse=True)
        self.merge = merge.astype(np.intp)
        self._largest = int(np.argmax(counts))


def learn_regions(X_input, X_canon, codes, regions, min_region_size, make_saliency, rng):
    """The region map and which training rows learnt it (those are not filtered).

    Parameters
    ----------
    X_input, X_canon : ndarray of shape (n_samples, n_features)
        Training rows in the input's and in the canonical column order.
    codes : ndarray of shape (n_samples,)
        Class codes.
    regions : "auto", int, callable or array-like of shape (n_samples,)
        See :class:`LocalKnockoffFilter`.
    min_region_size : int
        Fewest filtered rows a region keeps (smaller ones are merged).
    make_saliency : callable
        ``seed -> local selector`` whose per-row relevance on the learning
        split is clustered (``"auto"`` and int).
    rng : RandomState
        The split and the seeds.

    Returns
    -------
    region_map : RegionMap
    learn : ndarray of shape (n_samples,) of bool
        Rows used to learn the regions.
    train_regions : ndarray of shape (n_samples,) of int
        Region of each training row (the user's labels when given).
    """
    n = X_canon.shape[0]
    learn = np.zeros(n, dtype=bool)
    if callable(regions):
        rmap = RegionMap(func=regions)
    elif isinstance(regions, (str, Integral)):
        k = AUTO_REGIONS if isinstance(regions, str) else int(regions)
        n_learn = int(LEARN_FRACTION * n)
        if k <= 1 or n - n_learn < k * min_region_size:
            rmap = RegionMap()
        else:
            learn[rng.permutation(n)[:n_learn]] = True
            rmap = _tree_regions(X_canon[learn], codes[learn], k, min_region_size,
                                 make_saliency, rng)  # fmt: skip
    else:
        labels = np.asarray(regions)
        if labels.shape != (n,):
            raise ValueError(
                f"regions must be 'auto', an int, a callable or {n} labels; got shape "
                f"{labels.shape}."
            )
        tree = DecisionTreeClassifier(min_samples_leaf=max(1, min_region_size // 4),
                                      random_state=rng.randint(2**31 - 1))  # fmt: skip
        rmap = RegionMap(tree=tree.fit(X_canon, labels))
        rmap.set_merge(labels, min_region_size)
        return rmap, learn, rmap.index(labels)
    raw = rmap.raw(X_input, X_canon)
    rmap.set_merge(raw[~learn], min_region_size)
    return rmap, learn, rmap.index(raw)


def _tree_regions(X, codes, k, min_region_size, make_saliency, rng) -> RegionMap:
    """A switch tree with ``k`` leaves fitted to a local selector's row profiles on split A."""
    seed = rng.randint(2**31 - 1)
    sal = make_saliency(seed).fit(X, codes)
    P = np.asarray(sal.local_relevance(None), dtype=np.float64)
    norm = np.linalg.norm(P, axis=1, keepdims=True)
    P = np.divide(P, norm, out=np.zeros_like(P), where=norm > 0)
    return RegionMap(tree=SwitchTree(k, max(1, min_region_size // 2)).fit(X, P))


class SwitchTree:
    """Partition rows where a feature switches which *other* features matter.

    Grown best-first to ``max_leaves`` leaves. A leaf's candidate split on
    feature ``j`` is the depth-1 regression tree of the profiles of the
    other features, ``P[:, -j]``, on ``x_j`` (squared error summed over
    them); ``j`` is chosen by the share of that sum of squares it removes,
    and the leaf whose best split removes the most is split first. Leaving
    out ``P[:, j]`` keeps a feature whose own relevance grows with its value
    (``x_j^2`` in Syn2) from passing for a switch; a switch such as Syn4's
    ``x11`` changes the relevance of the other features.

    Parameters
    ----------
    max_leaves : int
        Number of leaves (regions).
    min_leaf : int
        Fewest rows in a leaf.
    """

    def __init__(self, max_leaves: int, min_leaf: int):
        self.max_leaves = max_leaves
        self.min_leaf = min_leaf

    def fit(self, X, P) -> SwitchTree:
        """Grow the tree on rows ``X`` and their profiles ``P``."""
        self.nodes_: list[list] = [[-1, 0.0, -1, -1]]  # feature, threshold, left, right
        leaves = {0: np.arange(len(X))}
        best = {0: self._best_split(X, P, leaves[0])}
        while len(leaves) < self.max_leaves:
            node = max(best, key=lambda m: best[m][0])
            gain, j, t = best.pop(node)
            if gain <= 0:
                break
            rows = leaves.pop(node)
            left, right = len(self.nodes_), len(self.nodes_) + 1
            self.nodes_[node] = [j, t, left, right]
            self.nodes_ += [[-1, 0.0, -1, -1], [-1, 0.0, -1, -1]]
            for child, mask in ((left, X[rows, j] <= t), (right, X[rows, j] > t)):
                leaves[child] = rows[mask]
                best[child] = self._best_split(X, P, rows[mask])
        self.tree_ = _Features(np.array([n[0] for n in self.nodes_], np.intp))
        return self

    def _best_split(self, X, P, rows) -> tuple[float, int, float]:
        """(sum of squares removed, feature, threshold) of the leaf's best switch split."""
        if len(rows) < 2 * self.min_leaf:
            return 0.0, -1, 0.0
        best = (0.0, -1, 0.0)
        share = -1.0
        for j in range(X.shape[1]):
            T = np.delete(P[rows], j, axis=1)
            total = ((T - T.mean(axis=0)) ** 2).sum()
            if total <= 0:
                continue
            stump = DecisionTreeRegressor(max_depth=1, min_samples_leaf=self.min_leaf)
            tree = stump.fit(X[rows, j : j + 1], T).tree_
            if tree.node_count < 3:
                continue
            w, imp = tree.weighted_n_node_samples, tree.impurity
            removed = T.shape[1] * (imp[0] * w[0] - imp[1] * w[1] - imp[2] * w[2])
            if removed / total > share:
                share, best = removed / total, (removed, j, float(tree.threshold[0]))
        return best

    def predict(self, X) -> NDArray[np.intp]:
        """Leaf (node index) of each row."""
        node = np.zeros(len(X), np.intp)
        for _ in range(self.max_leaves):  # depth is below the number of leaves
            feat = np.array([n[0] for n in self.nodes_])[node]
            inner = feat >= 0
            if not inner.any():
                break
            thr = np.array([n[1] for n in self.nodes_])[node]
            left = np.array([n[2] for n in self.nodes_])[node]
            right = np.array([n[3] for n in self.nodes_])[node]
            x = X[np.arange(len(X)), np.maximum(feat, 0)]
            node = np.where(inner, np.where(x <= thr, left, right), node)
        return node


class _Features:
    """``tree_.feature`` of a :class:`SwitchTree` (-1 at leaves), as scikit-learn trees have."""

    def __init__(self, feature):
        self.feature = feature
