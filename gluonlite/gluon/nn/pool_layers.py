"""Pooling layers (MXNet 1.9 ``MaxPool*``, ``AvgPool*``, ``GlobalMaxPool*``,
``GlobalAvgPool*``; re-exported by :mod:`.conv_layers`, where MXNet keeps them).

All call ``F.Pooling`` with ``name='fwd'``; ``ceil_mode`` is the operator's
``pooling_convention='full'``; ``count_include_pad`` is passed for average pooling
only, as MXNet does, so exported graphs carry the same attributes.
"""
from __future__ import annotations

from ..block import HybridBlock
from ._util import check, expand, is_number

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D"]

_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _Pooling(HybridBlock):
    """Shared implementation; ``pool_size`` is already a tuple."""

    def __init__(self, pool_size, strides, padding, ceil_mode: bool, global_pool: bool,
                 pool_type: str, layout: str, count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        ndim = len(pool_size)
        self._kwargs = {"kernel": pool_size, "stride": expand(strides, ndim),
                        "pad": expand(padding, ndim), "global_pool": global_pool,
                        "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self) -> str:
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        k = self._kwargs
        return (f"{self.__class__.__name__}(size={k['kernel']}, stride={k['stride']}, "
                f"padding={k['pad']}, ceil_mode={k['pooling_convention'] == 'full'}, "
                f"global_pool={k['global_pool']}, pool_type={k['pool_type']}, "
                f"layout={k['layout']})")


def _pool_init(self, ndim: int, pool_size, strides, padding, ceil_mode, global_pool,
               pool_type, layout, count_include_pad, kwargs) -> None:
    valid = _LAYOUTS[ndim]
    check(layout in valid, f"Only {valid[0]} and {valid[1]} layouts are valid for "
                           f"{ndim}D Pooling")
    if is_number(pool_size):
        pool_size = (pool_size,) * ndim
    check(len(pool_size) == ndim, f"pool_size must be a number or a list of {ndim} ints")
    if is_number(strides):
        strides = (strides,) * ndim
    _Pooling.__init__(self, tuple(pool_size), strides, padding, ceil_mode, global_pool,
                      pool_type, layout, count_include_pad, **kwargs)


class MaxPool1D(_Pooling):
    """Max pooling over ``(N, C, W)`` (or ``NWC``) data.

    Parameters
    ----------
    pool_size : int
        Window size.
    strides : int, optional
        Stride (default: ``pool_size``).
    padding : int
        Padding on both sides.
    layout : str
        ``'NCW'`` or ``'NWC'``.
    ceil_mode : bool
        Round the output size up (``pooling_convention='full'``).
    """

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False,
                 **kwargs):
        _pool_init(self, 1, pool_size, strides, padding, ceil_mode, False, "max", layout,
                   None, kwargs)


class MaxPool2D(_Pooling):
    """Max pooling over ``NCHW`` (or ``NHWC``) data; arguments as :class:`MaxPool1D`."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW",
                 ceil_mode=False, **kwargs):
        _pool_init(self, 2, pool_size, strides, padding, ceil_mode, False, "max", layout,
                   None, kwargs)


class MaxPool3D(_Pooling):
    """Max pooling over ``NCDHW`` (or ``NDHWC``) data; arguments as :class:`MaxPool1D`."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCDHW", **kwargs):
        _pool_init(self, 3, pool_size, strides, padding, ceil_mode, False, "max", layout,
                   None, kwargs)


class AvgPool1D(_Pooling):
    """Average pooling over ``NCW`` (or ``NWC``) data; arguments as :class:`MaxPool1D`
    plus ``count_include_pad`` (count padded zeros in the divisor)."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False,
                 count_include_pad=True, **kwargs):
        _pool_init(self, 1, pool_size, strides, padding, ceil_mode, False, "avg", layout,
                   count_include_pad, kwargs)


class AvgPool2D(_Pooling):
    """Average pooling over ``NCHW`` (or ``NHWC``) data; see :class:`AvgPool1D`."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCHW", count_include_pad=True, **kwargs):
        _pool_init(self, 2, pool_size, strides, padding, ceil_mode, False, "avg", layout,
                   count_include_pad, kwargs)


class AvgPool3D(_Pooling):
    """Average pooling over ``NCDHW`` (or ``NDHWC``) data; see :class:`AvgPool1D`."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCDHW", count_include_pad=True, **kwargs):
        _pool_init(self, 3, pool_size, strides, padding, ceil_mode, False, "avg", layout,
                   count_include_pad, kwargs)


def _global_init(self, ndim: int, pool_type: str, layout: str, kwargs) -> None:
    _pool_init(self, ndim, (1,) * ndim, (1,) * ndim, 0, True, True, pool_type, layout,
               None, kwargs)


class GlobalMaxPool1D(_Pooling):
    """Max over the whole spatial extent of ``NCW`` (or ``NWC``) data."""

    def __init__(self, layout="NCW", **kwargs):
        _global_init(self, 1, "max", layout, kwargs)


class GlobalMaxPool2D(_Pooling):
    """Max over the whole spatial extent of ``NCHW`` (or ``NHWC``) data."""

    def __init__(self, layout="NCHW", **kwargs):
        _global_init(self, 2, "max", layout, kwargs)


class GlobalMaxPool3D(_Pooling):
    """Max over the whole spatial extent of ``NCDHW`` (or ``NDHWC``) data."""

    def __init__(self, layout="NCDHW", **kwargs):
        _global_init(self, 3, "max", layout, kwargs)


class GlobalAvgPool1D(_Pooling):
    """Mean over the whole spatial extent of ``NCW`` (or ``NWC``) data."""

    def __init__(self, layout="NCW", **kwargs):
        _global_init(self, 1, "avg", layout, kwargs)


class GlobalAvgPool2D(_Pooling):
    """Mean over the whole spatial extent of ``NCHW`` (or ``NHWC``) data."""

    def __init__(self, layout="NCHW", **kwargs):
        _global_init(self, 2, "avg", layout, kwargs)


class GlobalAvgPool3D(_Pooling):
    """Mean over the whole spatial extent of ``NCDHW`` (or ``NDHWC``) data."""

    def __init__(self, layout="NCDHW", **kwargs):
        _global_init(self, 3, "avg", layout, kwargs)
