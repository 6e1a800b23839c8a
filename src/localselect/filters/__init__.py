"""Global filter baselines the papers compare against: Fisher score and mRMR.

Both also fit on a Dask collection (a ``dask.array`` or ``dask.dataframe``)
from statistics summed on the workers (:mod:`localselect.filters._collections`).
"""

from localselect.filters._fisher import FisherScore, fisher_score
from localselect.filters._mrmr import MRMR

__all__ = ["MRMR", "FisherScore", "fisher_score"]
