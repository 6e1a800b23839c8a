"""Filter-method baselines: univariate scores the papers compare against."""

from localselect.filters._fisher import FisherScore, fisher_score

__all__ = ["FisherScore", "fisher_score"]
