"""Python-level ``mx.nd`` functions MXNet defines on top of its operators:
``moveaxis``, ``contrib.isinf`` / ``isfinite`` / ``isnan`` and the AdamW wrappers
``contrib.adamw_update`` / ``mp_adamw_update`` / ``multi_adamw_update`` /
``multi_mp_adamw_update`` (which take ``rescale_grad`` as a number or an array),
``reset_arrays``, ``split_v2`` and the deprecated ``onehot_encode``."""
from __future__ import annotations

import numpy as np

__all__ = ["moveaxis", "isinf", "isfinite", "isnan", "adamw_update", "mp_adamw_update",
           "multi_adamw_update", "multi_mp_adamw_update", "reset_arrays", "split_v2",
           "onehot_encode"]


def _axes(value, ndim: int, what: str) -> tuple:
    values = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    out = []
    for v in values:
        if not -ndim <= v < ndim:
            raise ValueError(f"{what} should verify 0 <= {what} < tensor.ndim ({ndim}). "
                             f"Got {v}")
        out.append(v % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in `{what}` argument")
    return tuple(out)


def moveaxis(tensor, source, destination):
    """Move axes ``source`` to positions ``destination``, the others keeping their
    order (``numpy.moveaxis``); a transpose.

    Parameters
    ----------
    tensor : NDArray
    source, destination : int or sequence of int
    """
    source = _axes(source, tensor.ndim, "source")
    destination = _axes(destination, tensor.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(tensor.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return tensor.transpose(order)


def isinf(data):
    """1 where ``data`` is +-inf, else 0 (``data``'s dtype)."""
    return data.abs() == np.inf


def isfinite(data):
    """1 where ``data`` is neither inf nor nan, else 0."""
    from .arith import logical_and
    return logical_and(data.abs() != np.inf, data == data)


def isnan(data):
    """1 where ``data`` is nan, else 0."""
    return data != data


def _rescale_array(rescale_grad, ctx):
    """MXNet's ``_get_rescale_grad``: a number becomes a (1,) array on ``ctx``."""
    from .ndarray import NDArray, full
    if isinstance(rescale_grad, NDArray):
        return rescale_grad.as_in_context(ctx)
    return full(shape=(1,), val=rescale_grad, ctx=ctx)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """One AdamW step (decoupled weight decay); ``rescale_grad`` a number or an array."""
    from ._api import _internal
    return _internal._adamw_update(weight=weight, grad=grad, mean=mean, var=var,
                                   rescale_grad=_rescale_array(rescale_grad, weight.context),
                                   lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon,
                                   wd=wd, clip_gradient=clip_gradient, out=out, name=name,
                                   **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                    **kwargs):
    """Mixed-precision AdamW step on the float32 master copy ``weight32``."""
    from ._api import _internal
    return _internal._mp_adamw_update(weight=weight, grad=grad, mean=mean, var=var,
                                      weight32=weight32,
                                      rescale_grad=_rescale_array(rescale_grad, weight.context),
                                      lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon,
                                      wd=wd, clip_gradient=clip_gradient, out=out, name=name,
                                      **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None,
                       name=None, size=0, **kwargs):
    """AdamW steps for several weights in one call (``_multi_adamw_update``)."""
    from ._api import _internal
    size = size or len(weights)
    flat = [a for group in zip(weights, grads, mean, var) for a in group]
    flat.append(_rescale_array(rescale_grad, weights[0].context))
    return _internal._multi_adamw_update(*flat, out=out, num_weights=size, lrs=lrs, wds=wds,
                                         etas=etas, name=name, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          out=None, name=None, size=0, **kwargs):
    """Mixed-precision AdamW steps for several weights (``_multi_mp_adamw_update``)."""
    from ._api import _internal
    size = size or len(weights)
    flat = [a for group in zip(weights, grads, mean, var, weights32) for a in group]
    flat.append(_rescale_array(rescale_grad, weights[0].context))
    return _internal._multi_mp_adamw_update(*flat, out=out, num_weights=size, lrs=lrs,
                                            wds=wds, etas=etas, name=name, **kwargs)


def reset_arrays(*data, num_arrays: int | None = None, **kwargs) -> list:
    """Set every array of ``data`` to zero in place (sparse arrays keep no rows); returns
    an empty list, as MXNet's operator without outputs does."""
    if num_arrays is not None and int(num_arrays) != len(data):
        from ..base import MXNetError
        raise MXNetError(f"Operator reset_arrays: num_arrays={num_arrays} but "
                         f"{len(data)} arrays were given")
    for arr in data:
        arr[:] = 0
    return []


def split_v2(ary, indices_or_sections, axis: int = 0, squeeze_axis: bool = False):
    """Split ``ary`` along ``axis`` into sub-arrays (MXNet's ``nd.split_v2``).

    Parameters
    ----------
    ary : NDArray
        Array to split.
    indices_or_sections : int or tuple of int
        An int ``N``: ``N`` equal parts (``ValueError`` if the axis does not divide).
        A tuple: the sorted positions along ``axis`` where the parts begin (after the
        first, which begins at 0).
    axis : int
        Axis to split along.
    squeeze_axis : bool
        Drop ``axis`` from parts of size 1 along it.

    Returns
    -------
    NDArray or list of NDArray
        The parts (one NDArray when there is one part).
    """
    from ._api import _internal
    if isinstance(indices_or_sections, int):
        size = ary.shape[axis]
        if size % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        step = size // indices_or_sections
        indices = [i * step for i in range(indices_or_sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    return _internal._split_v2(ary, indices=tuple(indices), axis=axis,
                               squeeze_axis=squeeze_axis)


def onehot_encode(indices, out):
    """Write into ``out`` (a matrix) rows one-hot at the 0-based columns ``indices``
    (MXNet's deprecated ``nd.onehot_encode``; use ``one_hot``).  Returns ``out``."""
    from ._api import _internal
    return _internal._onehot_encode(indices, out, out=out)
