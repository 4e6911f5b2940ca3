"""More Python-level ``mx.nd`` functions MXNet defines over its operators: ``histogram``
and the aggregated LAMB wrappers ``contrib.multi_lamb_update`` /
``contrib.multi_mp_lamb_update``."""
from __future__ import annotations

import warnings

import numpy as np

__all__ = ["histogram", "multi_lamb_update", "multi_mp_lamb_update"]


def histogram(a, bins=10, range=None):  # noqa: A002 - MXNet's argument name
    """Counts of ``a`` in ``bins`` (MXNet's ``nd.histogram``).

    Parameters
    ----------
    a : NDArray
    bins : int or NDArray
        A number of equal bins over ``range``, or the bin edges.
    range : (float, float), optional
        Needed with an int ``bins``; without it MXNet warns and uses NumPy's histogram.

    Returns
    -------
    (NDArray, NDArray)
        The counts and the bin edges.
    """
    from .ndarray import NDArray, array
    from ._api import _internal
    if isinstance(bins, NDArray):
        return _internal._histogram(data=a, bins=bins)
    if isinstance(bins, (int, np.integer)):
        if range is None:
            warnings.warn("range is not specified, using numpy's result to ensure "
                          "consistency with numpy")
            counts, edges = np.histogram(a.asnumpy(), bins=int(bins))
            return array(counts, ctx=a.context), array(edges, ctx=a.context)
        return _internal._histogram(data=a, bin_cnt=int(bins), range=range)
    raise ValueError("bins argument should be either an integer or an NDArray")


def _lamb(op_name: str, groups, step_count, lrs, wds, out, num_tensors, kwargs):
    from ._api import _internal
    flat = [x for group in zip(*groups) for x in group]
    return getattr(_internal, op_name)(*flat, out=out, num_tensors=num_tensors or len(groups[0]),
                                       step_count=step_count, learning_rates=lrs, wds=wds,
                                       **kwargs)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None,
                      num_tensors: int = 0, **kwargs):
    """LAMB steps for several weights in one call (``_multi_lamb_update``)."""
    return _lamb("_multi_lamb_update", (weights, grads, mean, var), step_count, lrs, wds, out,
                 num_tensors, kwargs)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds,
                         out=None, num_tensors: int = 0, **kwargs):
    """Mixed-precision LAMB steps for several weights (``_multi_mp_lamb_update``)."""
    return _lamb("_multi_mp_lamb_update", (weights, grads, mean, var, weights32), step_count,
                 lrs, wds, out, num_tensors, kwargs)
