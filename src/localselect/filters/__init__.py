"""Global filter baselines the papers compare against: Fisher score and mRMR.

Both also fit on a Dask collection (a ``dask.array`` or ``dask.dataframe``)
from statistics summed on the workers (:mod:`localselect.filters._collections`).
"""

from localselect.base import register_collection_fit
from localselect.filters._collections import fit_fisher_collection, fit_mrmr_collection
from localselect.filters._fisher import FisherScore, fisher_score
from localselect.filters._mrmr import MRMR

register_collection_fit(FisherScore, fit_fisher_collection)
register_collection_fit(MRMR, fit_mrmr_collection)

__all__ = ["MRMR", "FisherScore", "fisher_score"]
