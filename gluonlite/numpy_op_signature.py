"""MXNet's ``mxnet.numpy_op_signature``: the ``mx.np`` function behind a built-in NumPy
operator name (``_np_sum`` is ``mx.np.sum``, ``_npi_X`` likewise)."""
from __future__ import annotations

__all__ = ["_get_builtin_op"]


def _get_builtin_op(op_name: str):
    """The ``mx.nd.np`` function (or ``linalg``/``random`` one) for an operator named
    ``_np_X``/``_npi_X``/``_np_linalg_X``/``_np_random_X``; None when there is none."""
    from .ndarray import numpy as _mx_np
    for prefix, module in (("_np_linalg_", _mx_np.linalg), ("_npi_linalg_", _mx_np.linalg),
                           ("_np__random_", _mx_np.random),
                           ("_np_random_", _mx_np.random), ("_npi_random_", _mx_np.random),
                           ("_np_", _mx_np), ("_npi_", _mx_np)):
        if op_name.startswith(prefix):
            return getattr(module, op_name[len(prefix):], None)
    return None
