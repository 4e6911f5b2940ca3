"""Input normalisation shared by the array iterators (``mxnet.io.utils``)."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..ndarray import NDArray, array
from ..ndarray.sparse import CSRNDArray, csr_matrix
from ..ops.sparse_storage import csr_take_rows

__all__ = ["_init_data", "_has_instance", "_getdata_by_idx"]


def _init_data(data, allow_empty: bool, default_name: str) -> list:
    """``[(name, NDArray)]`` sorted by name, from an array, a list or a dict of arrays.

    One unnamed array is called ``default_name``; several are ``_0_<default_name>``,
    ``_1_<default_name>``, ...; values that are not NDArrays are converted with
    ``nd.array`` (float32 unless they are NDArrays already).
    """
    assert data is not None or allow_empty
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty:
            assert len(data) > 0
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict((f"_{i}_{default_name}", d) for i, d in enumerate(data))
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, h5py.Dataset "
                        "a list of them or dict with them as values")
    converted = {}
    for name, value in data.items():
        if isinstance(value, NDArray):
            converted[name] = value
            continue
        if type(value).__module__.startswith("scipy.sparse"):
            converted[name] = csr_matrix(value)   # a SciPy sparse matrix: CSRNDArray
            continue
        try:
            converted[name] = array(value)
        except Exception as err:
            raise TypeError(f"Invalid type '{type(value)}' for {name}, should be NDArray, "
                            "numpy.ndarray or h5py.Dataset") from err
    return sorted(converted.items())


def _has_instance(data, dtype) -> bool:
    """Whether any array of ``[(name, array)]`` is a ``dtype``."""
    return any(isinstance(arr, dtype) for _, arr in data)


def _getdata_by_idx(data, idx) -> list:
    """``[(name, array[idx])]``: every array reordered along its first axis (csr arrays
    stay csr)."""
    out = []
    for name, arr in data:
        if isinstance(arr, CSRNDArray):
            st = csr_take_rows(arr.context.xp, arr.handle, idx)
            out.append((name, CSRNDArray(st, arr.context)))
        else:
            out.append((name, array(arr.asnumpy()[idx], arr.context, dtype=arr.dtype)))
    return out
