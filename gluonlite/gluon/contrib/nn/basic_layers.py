"""MXNet 1.9's ``mx.gluon.contrib.nn`` layers: ``Identity``, ``Concurrent``,
``HybridConcurrent``, ``SyncBatchNorm`` and ``PixelShuffle1D/2D/3D``.

The pixel shuffles are written with ``Reshape``'s special codes (-3 merges two axes,
-4 splits one), ``transpose`` and ``swapaxes``, the operators MXNet's layers emit, so
their exported graphs match MXNet's.
"""
from __future__ import annotations

import warnings

from .... import ndarray as _nd
from ...block import HybridBlock
from ...nn.basic_layers import HybridSequential, Sequential
from ...nn.norm_layers import _BatchNormBase
from ...nn._util import check

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm", "PixelShuffle1D",
           "PixelShuffle2D", "PixelShuffle3D"]


class Concurrent(Sequential):
    """Run every child on the same input and concatenate the outputs along ``axis``.

    Parameters
    ----------
    axis : int
        Concatenation axis (default the last).
    prefix, params
        As for :class:`~gluonlite.gluon.Block`.
    """

    def __init__(self, axis: int = -1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        out = [block(x) for block in self._children.values()]
        return _nd.concat(*out, dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Hybridizable :class:`Concurrent` (the outputs are joined with ``F.concat``)."""

    def __init__(self, axis: int = -1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        out = [block(x) for block in self._children.values()]
        return F.concat(*out, dim=self.axis)


class Identity(HybridBlock):
    """Return the input unchanged (a placeholder branch for :class:`Concurrent`)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x


def _default_num_devices() -> int:
    warnings.warn("Caution using SyncBatchNorm: if not using all the GPUs, please mind set "
                  "the proper ndev", stacklevel=3)
    from .... import context
    return max(context.num_gpus(), 1)


class SyncBatchNorm(_BatchNormBase):
    """Batch normalization whose statistics span ``num_devices`` devices
    (``_contrib_SyncBatchNorm``; the channel axis is 1).

    Parameters
    ----------
    in_channels : int
        Number of channels; 0 defers it to the first forward.
    num_devices : int, optional
        Devices taking part (default: the number of GPUs, at least 1; MXNet warns).
    momentum, epsilon, center, scale, use_global_stats, beta_initializer,
    gamma_initializer, running_mean_initializer, running_variance_initializer
        As for :class:`~gluonlite.gluon.nn.BatchNorm`.
    """

    _op = ("contrib", "SyncBatchNorm")

    def __init__(self, in_channels: int = 0, num_devices=None, momentum: float = 0.9,
                 epsilon: float = 1e-5, center: bool = True, scale: bool = True,
                 use_global_stats: bool = False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        if num_devices is None:
            num_devices = _default_num_devices()
        self._kwargs = {"eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats, "ndev": num_devices,
                        "key": self.prefix}


def _factors(factor, n: int) -> tuple:
    try:
        return (int(factor),) * n
    except TypeError:
        factors = tuple(int(f) for f in factor)
        check(len(factors) == n, f"wrong length {len(factors)}")
        return factors


class PixelShuffle1D(HybridBlock):
    """Rearrange ``(N, f*C, W)`` into ``(N, C, W*f)`` (sub-pixel upsampling).

    Parameters
    ----------
    factor : int
        Upsampling factor.
    """

    def __init__(self, factor: int):
        super().__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))      # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))         # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))          # (N, C, W*f)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._factor})"


class PixelShuffle2D(HybridBlock):
    """Rearrange ``(N, f1*f2*C, H, W)`` into ``(N, C, H*f1, W*f2)``.

    Parameters
    ----------
    factor : int or tuple of 2 int
        Upsampling factors along H and W.
    """

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2)

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))    # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))      # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))          # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))             # (N, C, H*f1, W*f2)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._factors})"


class PixelShuffle3D(HybridBlock):
    """Rearrange ``(N, f1*f2*f3*C, D, H, W)`` into ``(N, C, D*f1, H*f2, W*f3)``.

    Parameters
    ----------
    factor : int or tuple of 3 int
        Upsampling factors along D, H and W.
    """

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3)

    def hybrid_forward(self, F, x):
        # one axis at a time with swapaxes (transpose is limited to 6 axes in MXNet)
        f1, f2, f3 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))   # (N, C, f1*f2*f3, D, H, W)
        x = F.swapaxes(x, 2, 3)                                # (N, C, D, f1*f2*f3, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f1, f2 * f3, 0, 0))     # (N, C, D, f1, f2*f3, H, W)
        x = F.reshape(x, (0, 0, -3, 0, 0, 0))                  # (N, C, D*f1, f2*f3, H, W)
        x = F.swapaxes(x, 3, 4)                                # (N, C, D*f1, H, f2*f3, W)
        x = F.reshape(x, (0, 0, 0, 0, -4, f2, f3, 0))          # (N, C, D*f1, H, f2, f3, W)
        x = F.reshape(x, (0, 0, 0, -3, 0, 0))                  # (N, C, D*f1, H*f2, f3, W)
        x = F.swapaxes(x, 4, 5)                                # (N, C, D*f1, H*f2, W, f3)
        return F.reshape(x, (0, 0, 0, 0, -3))                  # (N, C, D*f1, H*f2, W*f3)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._factors})"
