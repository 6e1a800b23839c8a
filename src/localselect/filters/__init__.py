"""Global filter baselines the papers compare against: Fisher score and mRMR."""

from localselect.filters._fisher import FisherScore, fisher_score
from localselect.filters._mrmr import MRMR

__all__ = ["MRMR", "FisherScore", "fisher_score"]
