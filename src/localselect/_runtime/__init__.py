"""The runtime: how localselect runs work, compiled kernels and reports (one owner each).

* :mod:`._blocks`: ``n_jobs`` (scikit-learn's meaning: None is 1) and the one
  driver of parallel work: :func:`run_blocks` (threads in this process, or the
  caller's Dask cluster) and :func:`map_tasks` (joblib tasks: processes,
  threads or Dask). No other module constructs a pool.
* :mod:`._cluster`, :mod:`._dask`, :mod:`._backend`: the Dask path (joblib
  loops that survive a lost worker; the ``"localselect-dask"`` joblib backend,
  registered when the runtime is imported, i.e. by any estimator module).
* :mod:`._kernels`: the registry of compiled numba kernels, fit and predict:
  the input rule, warm-up, compile message and Ctrl-C safety.
* :mod:`._report`: the :class:`Reporter` a fit makes from ``verbose``: log
  messages and progress tasks through one object; listeners per context.
* :mod:`._size`: the size check (:func:`check_scale`) of the cost model an
  estimator declares (``Declaration(size=...)``), and :class:`MeasuredCost`.

Nothing here imports the rest of localselect.
"""

from localselect._runtime._backend import BACKEND_NAME, register_backend
from localselect._runtime._blocks import (
    local_threads,
    map_tasks,
    n_threads,
    on_cluster,
    run_blocks,
)
from localselect._runtime._cluster import ClusterLostError
from localselect._runtime._kernels import (
    CompiledKernel,
    compiling,
    ensure_compiled,
    kernel_input,
    register_kernel,
    registered_kernels,
)
from localselect._runtime._report import ProgressListener, ProgressTask, Reporter, listen
from localselect._runtime._size import (
    BUDGET_SECONDS,
    MeasuredCost,
    about,
    check_scale,
    rows_within,
    scale_refusal,
)

__all__ = [
    "BACKEND_NAME",
    "BUDGET_SECONDS",
    "ClusterLostError",
    "CompiledKernel",
    "MeasuredCost",
    "ProgressListener",
    "ProgressTask",
    "Reporter",
    "about",
    "check_scale",
    "compiling",
    "ensure_compiled",
    "kernel_input",
    "listen",
    "local_threads",
    "map_tasks",
    "n_threads",
    "on_cluster",
    "register_kernel",
    "registered_kernels",
    "rows_within",
    "run_blocks",
    "scale_refusal",
]

register_backend()
