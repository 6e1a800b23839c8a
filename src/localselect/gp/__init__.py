"""GP local feature selection (Pichara and Soto): per-query discriminative subspaces.

:class:`GPLocalFeatureSelection` is the estimator. The numeric building blocks
are public for analyses such as the paper's Fig. 4 (they take validated float64
arrays and do not check their input):

* :func:`discriminative_scores` -- eq. (3) at the training points
  (:func:`raw_discriminative_scores` before normalisation);
* :func:`gaussian_kl` -- the discriminative power of sec. 4.3;
* :func:`greedy_max_variance`, :func:`fit_hyperparameters`,
  :func:`fit_posterior`, :func:`log_marginal_likelihood` -- the shared-kernel
  multi-output GP of sec. 4.2;
* :func:`select_subspaces` -- Algorithm 2;
* :func:`k_medoids` -- candidate observation points for large data (sec. 4.5).
"""

from localselect.gp._estimator import GPLocalFeatureSelection
from localselect.gp._medoids import k_medoids
from localselect.gp._multigp import (
    fit_hyperparameters,
    fit_posterior,
    greedy_max_variance,
    log_marginal_likelihood,
)
from localselect.gp._scores import discriminative_scores, gaussian_kl, raw_discriminative_scores
from localselect.gp._subspace import select_subspaces

__all__ = [
    "GPLocalFeatureSelection",
    "discriminative_scores",
    "fit_hyperparameters",
    "fit_posterior",
    "gaussian_kl",
    "greedy_max_variance",
    "k_medoids",
    "log_marginal_likelihood",
    "raw_discriminative_scores",
    "select_subspaces",
]
