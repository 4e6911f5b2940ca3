"""MXNet's ``mxnet._numpy_op_doc``: the documented signatures of the built-in ``_np_*``
operators behind ``mx.np`` functions.

Each ``_np_<name>`` function here has MXNet 1.9.1's documented signature and runs
``mx.np.<name>``; on import the ``mx.np`` (``mx.nd.np``) functions get that signature
as their ``__signature__``, as MXNet's generated functions carry theirs (what
``inspect.signature`` and MXNet's ``test_np_builtin_op_signature`` read).  Where a
function takes more than the documented parameters (``sum``'s ``where``, ``prod``'s
``initial``), the extra ones are keyword parameters after them.
"""
from __future__ import annotations

import inspect

from .ndarray import numpy as _np

__all__: list = []


def _np_all(a, axis=None, keepdims=False, out=None):
    """Whether every element along ``axis`` is true."""
    return _np.all(a, axis=axis, keepdims=keepdims, out=out)


def _np_any(a, axis=None, keepdims=False, out=None):
    """Whether any element along ``axis`` is true."""
    return _np.any(a, axis=axis, keepdims=keepdims, out=out)


def _np_sometrue(a, axis=None, keepdims=False, out=None):
    """Whether any element along ``axis`` is true (alias of ``any``)."""
    return _np.any(a, axis=axis, keepdims=keepdims, out=out)


def _np_max(a, axis=None, keepdims=False, out=None):
    """The maximum along ``axis`` (of all elements when None)."""
    return _np.max(a, axis=axis, keepdims=keepdims, out=out)


def _np_amax(a, axis=None, keepdims=False, out=None):
    """The maximum along ``axis`` (alias of ``max``)."""
    return _np.max(a, axis=axis, keepdims=keepdims, out=out)


def _np_min(a, axis=None, keepdims=False, out=None):
    """The minimum along ``axis`` (of all elements when None)."""
    return _np.min(a, axis=axis, keepdims=keepdims, out=out)


def _np_amin(a, axis=None, keepdims=False, out=None):
    """The minimum along ``axis`` (alias of ``min``)."""
    return _np.min(a, axis=axis, keepdims=keepdims, out=out)


def _np_sum(a, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    """The sum along ``axis``, plus ``initial`` when given."""
    return _np.sum(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, out=out)


def _np_prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product along ``axis``."""
    return _np.prod(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def _np_product(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product along ``axis`` (alias of ``prod``)."""
    return _np.prod(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def _np_cumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum along ``axis`` (of the flattened array when None)."""
    return _np.cumsum(a, axis=axis, dtype=dtype, out=out)


def _np_copy(a, out=None):
    """A copy of ``a``."""
    return _np.copy(a, out=out)


def _np_reshape(a, newshape, order="C", out=None):
    """``a`` with a new shape (one ``-1`` stands for the rest)."""
    return _np.reshape(a, newshape, order=order, out=out)


def _np_squeeze(a, axis=None, out=None):
    """``a`` without its axes of length one (those of ``axis`` when given)."""
    return _np.squeeze(a, axis=axis, out=out)


def _np_transpose(a, axes=None):
    """``a`` with its axes permuted (reversed when ``axes`` is None)."""
    return _np.transpose(a, axes=axes)


def _np_moveaxis(a, source, destination):
    """``a`` with axes ``source`` moved to ``destination``."""
    return _np.moveaxis(a, source, destination)


def _np_roll(a, shift, axis=None):
    """``a`` rolled by ``shift`` along ``axis`` (of the flattened array when None)."""
    return _np.roll(a, shift, axis=axis)


def _np_repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis``."""
    return _np.repeat(a, repeats, axis=axis)


def _np_diag(array, k=0):
    """The ``k``-th diagonal of a 2-d ``array``, or a 2-d array with a 1-d one on it."""
    return _np.diag(array, k)


def _np_diagflat(array, k=0):
    """A 2-d array with the flattened ``array`` on its ``k``-th diagonal."""
    return _np.diagflat(array, k)


def _np_diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal at ``offset`` of the 2-d planes of axes ``axis1`` and ``axis2``."""
    return _np.diagonal(a, offset=offset, axis1=axis1, axis2=axis2)


def _np_trace(a, offset=0, axis1=0, axis2=1, out=None):
    """The sum of the diagonal at ``offset`` of the planes of ``axis1`` and ``axis2``."""
    return _np.trace(a, offset=offset, axis1=axis1, axis2=axis2, out=out)


def _np_dot(a, b, out=None):
    """The dot product of ``a`` and ``b`` (NumPy's rules for every rank)."""
    return _np.dot(a, b, out=out)


def _np_atleast_1d(*arys):
    """Each array with at least one axis."""
    return _np.atleast_1d(*arys)


def _np_atleast_2d(*arys):
    """Each array with at least two axes."""
    return _np.atleast_2d(*arys)


def _np_atleast_3d(*arys):
    """Each array with at least three axes."""
    return _np.atleast_3d(*arys)


def _np__random_shuffle(x):
    """Shuffle ``x`` in place along its first axis."""
    return _np.random.shuffle(x)


def _document() -> None:
    """Give the ``mx.np`` functions the documented signatures."""
    for name, doc_fn in list(globals().items()):
        if not name.startswith("_np_") or not callable(doc_fn):
            continue
        target = _np.random if name.startswith("_np__random_") else _np
        fn = getattr(target, name.rsplit("_", 1)[-1] if name.startswith("_np__random_")
                     else name[len("_np_"):], None)
        if fn is not None and not hasattr(fn, "__signature__"):
            fn.__signature__ = inspect.signature(doc_fn)


_document()
