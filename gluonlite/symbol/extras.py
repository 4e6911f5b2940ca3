"""Symbol functions MXNet writes in Python over its operators: ``sym.split_v2`` and
``sym.histogram``."""
from __future__ import annotations

__all__ = ["split_v2", "histogram"]


def split_v2(ary, indices_or_sections, axis: int = 0, squeeze_axis: bool = False):
    """Split ``ary`` along ``axis`` (MXNet's ``sym.split_v2``): into ``N`` equal parts for
    an int, or at the sorted positions of a tuple (the first part begins at 0).

    Returns
    -------
    Symbol
        A group of the parts.
    """
    from ._api import _internal
    if isinstance(indices_or_sections, int):
        return _internal._split_v2(ary, indices=(), axis=axis, squeeze_axis=squeeze_axis,
                                   sections=indices_or_sections)
    if isinstance(indices_or_sections, tuple):
        return _internal._split_v2(ary, indices=(0,) + tuple(indices_or_sections), axis=axis,
                                   squeeze_axis=squeeze_axis)
    raise ValueError("indices_or_sections must either int or tuple of ints")


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002 - MXNet's argument name
    """Counts of ``a`` in ``bins`` (a Symbol of edges, or an int with ``range``, which a
    symbol needs); MXNet's ``sym.histogram``: a group of counts and edges."""
    from ._api import _internal
    from .symbol import Symbol
    if isinstance(bins, Symbol):
        return _internal._histogram(data=a, bins=bins, **kwargs)
    if isinstance(bins, int):
        if range is None:
            raise ValueError("null range is not supported in symbol mode")
        return _internal._histogram(data=a, bin_cnt=bins, range=range, **kwargs)
    raise ValueError("bins argument should be either an integer or an NDArray")
