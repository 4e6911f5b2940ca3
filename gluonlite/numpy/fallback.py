"""The ``mx.np`` functions MXNet runs with official NumPy (MXNet's ``mx.np.fallback``):
the arrays are copied to the host, NumPy computes, and array results come back as
``mx.np`` arrays on the first argument's device.  No gradient flows through them.

NumPy 2 removed a few of MXNet's list: ``alltrue``, ``msort``, ``trapz`` and ``in1d``
are served by their NumPy 2 equivalents; the financial functions (``npv``, ``mirr``,
``pmt``, ``ppmt``, ``pv``, ``rate``) left NumPy for ``numpy_financial`` and are absent.
"""
from __future__ import annotations

import functools

import numpy as onp

from ..ndarray.numpy.dispatch import run_on_host

_NAMES = [
    "allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere",
    "array_equal", "array_equiv", "choose", "compress", "corrcoef", "correlate",
    "count_nonzero", "cov", "digitize", "divmod", "extract", "flatnonzero", "float_power",
    "frexp", "heaviside", "histogram2d", "histogram_bin_edges", "histogramdd", "i0", "in1d",
    "interp", "intersect1d", "isclose", "isin", "ix_", "lexsort", "min_scalar_type", "modf",
    "msort", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmedian",
    "nanmin", "nanpercentile", "nanprod", "nanquantile", "ndim",
    "partition", "packbits", "piecewise", "poly", "polyadd", "polydiv", "polyfit", "polyint",
    "polymul", "polysub", "polyval", "positive", "promote_types", "ptp", "real",
    "result_type", "rollaxis", "roots", "searchsorted", "select", "setdiff1d", "setxor1d",
    "signbit", "size", "spacing", "take_along_axis", "trapz", "tril_indices_from",
    "trim_zeros", "triu_indices_from", "union1d", "unpackbits", "unwrap", "vander",
]
# NumPy 2 names for functions it renamed or removed
_NUMPY2 = {
    "alltrue": onp.all,
    "msort": lambda a: onp.sort(a, axis=0),
    "trapz": getattr(onp, "trapezoid", None),
    "in1d": lambda ar1, ar2, assume_unique=False, invert=False: onp.isin(
        onp.ravel(ar1), ar2, assume_unique=assume_unique, invert=invert),
    "ptp": lambda a, axis=None, out=None, keepdims=False: onp.ptp(a, axis=axis,
                                                                  keepdims=keepdims),
}


def _host(name: str, func):
    @functools.wraps(func)
    def run(*args, **kwargs):
        return run_on_host(func, args, kwargs)
    run.__module__ = __name__
    run.__name__ = name
    return run


__all__ = []
for _name in _NAMES:
    _func = _NUMPY2.get(_name) or getattr(onp, _name, None)
    if _func is not None:
        globals()[_name] = _host(_name, _func)
        __all__.append(_name)
