"""Array type aliases shared by the numeric kernels."""

import numpy as np
from numpy.typing import NDArray

__all__ = ["BoolArray", "FloatArray", "Int64Array", "IntArray"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.intp]
Int64Array = NDArray[np.int64]
