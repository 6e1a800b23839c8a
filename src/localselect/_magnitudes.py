"""One check of value magnitudes, called by every estimator right after ``validate_data``.

The methods square differences of values and sum them over samples and
features (distances, variances, kernel exponents, the Mahalanobis covariance).
In float64 a square overflows above about 1.3e154 and underflows to 0 below
about 1e-154, and a sum of squares overflows earlier still: a column with a cell
of 1e300 made LAPACK fail ("failed to compute an eigenvalue") or the scores
``inf``/NaN, and a column that varies only by 1e-300 has every squared
difference 0 (NaN scores from 0/0).

:func:`check_magnitudes` refuses such a column at once with a ``ValueError``
naming it, its scale and the fix (rescale it), so no estimator returns
non-finite scores or fails inside LAPACK. Rescaling inside would change what a
fitted model means for the distance-based methods (their kernel widths and
``alpha`` are in the units of ``X``), so every method refuses alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LARGEST_MAGNITUDE", "SMALLEST_SPREAD", "check_magnitudes"]

#: Largest absolute value accepted: squares of differences (up to 4e200) and their
#: sums over samples and features stay far below float64's maximum (1.8e308).
LARGEST_MAGNITUDE = 1e100

#: Smallest non-zero range (max - min) of a column accepted: its squared differences
#: (1e-200 and up) stay far above float64's smallest normal number (2.2e-308).
SMALLEST_SPREAD = 1e-100


def _column_name(estimator: Any, j: int) -> str:
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None and j < len(names):
        return f"column {j} ({names[j]!r})"
    return f"column {j}"


def check_magnitudes(estimator: Any, X: Any, *, spread: bool = True) -> Any:
    """Return ``X`` unchanged, or raise when a column's scale breaks float64 arithmetic.

    Parameters
    ----------
    estimator : estimator
        The caller, for its name and ``feature_names_in_`` in the message.
    X : ndarray of shape (n_samples, n_features)
        Validated data (after ``validate_data``). NaN cells are ignored; in an
        object array (a raw table) the cells that are not numbers are too.
    spread : bool, default=True
        Also refuse a column whose non-zero range is below :data:`SMALLEST_SPREAD`
        (training data; new rows to predict are checked for their magnitude only).

    Returns
    -------
    X : ndarray
        The input, unchanged.

    Raises
    ------
    ValueError
        A column holds a value above :data:`LARGEST_MAGNITUDE` in magnitude, or
        (with ``spread``) varies by less than :data:`SMALLEST_SPREAD` but not 0.
    """
    arr = np.asarray(X)
    if arr.ndim == 2 and arr.dtype == object:  # a raw table (LLDS): its numeric cells
        import pandas as pd

        numeric = pd.DataFrame(arr).apply(pd.to_numeric, errors="coerce")
        arr = numeric.to_numpy(dtype=np.float64, na_value=np.nan)
    if arr.ndim != 2 or arr.dtype.kind != "f" or arr.size == 0:
        return X
    name = type(estimator).__name__
    with np.errstate(over="ignore", invalid="ignore"):
        largest = np.fmax.reduce(np.abs(arr), axis=0)
        width = np.fmax.reduce(arr, axis=0) - np.fmin.reduce(arr, axis=0)
    big = np.flatnonzero(largest > LARGEST_MAGNITUDE)
    if big.size:
        j = int(big[0])
        raise ValueError(
            f"{name}: {_column_name(estimator, j)} holds values up to {largest[j]:.3g} in "
            f"magnitude; above {LARGEST_MAGNITUDE:.0e} the squared differences this method "
            "sums overflow float64. Rescale the column (e.g. sklearn.preprocessing."
            "StandardScaler, or divide it by a power of ten) and try again."
        )
    tiny = np.flatnonzero((width > 0) & (width < SMALLEST_SPREAD) & spread)
    if tiny.size:
        j = int(tiny[0])
        raise ValueError(
            f"{name}: {_column_name(estimator, j)} varies only by {width[j]:.3g} "
            f"(max - min); below {SMALLEST_SPREAD:.0e} its squared differences underflow "
            "to 0 in float64. Rescale the column (e.g. sklearn.preprocessing."
            "StandardScaler, or multiply it by a power of ten) and try again."
        )
    return X
