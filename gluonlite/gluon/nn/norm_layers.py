"""Normalization layers (MXNet 1.9 ``BatchNorm``, ``BatchNormReLU``, ``InstanceNorm``,
``LayerNorm``, ``GroupNorm``; MXNet keeps them in ``nn.basic_layers``, which re-exports
them from here).

Parameter names are MXNet's: ``gamma``, ``beta`` and, for batch norm, the auxiliary
``running_mean`` and ``running_var`` (``grad_req='null'``), which the BatchNorm
operator updates in place during a training forward.
"""
from __future__ import annotations

import numpy as np

from ..block import HybridBlock

__all__ = ["BatchNorm", "BatchNormReLU", "InstanceNorm", "LayerNorm", "GroupNorm"]


def _kwargs_repr(kwargs: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


class _BatchNormBase(HybridBlock):
    """Shared constructor, ``cast`` and ``repr`` of the batch-norm family.

    Subclasses set ``_op`` (the ``F`` function path) and may extend ``_kwargs``.
    """

    _op = ("BatchNorm",)

    def __init__(self, axis: int = 1, momentum: float = 0.9, epsilon: float = 1e-5,
                 center: bool = True, scale: bool = True, use_global_stats: bool = False,
                 beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels: int = 0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        if in_channels != 0:
            self.in_channels = in_channels
        shape = (in_channels,)
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=shape, init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=shape, init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null", shape=shape,
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null", shape=shape,
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype) -> None:
        """Cast the parameters; float16 keeps them float32 (the operator computes its
        statistics in float32 for float16 data)."""
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        fn = F
        for part in self._op:
            fn = getattr(fn, part)
        return fn(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        in_channels = self.gamma.shape[0]
        return f"{self.__class__.__name__}({_kwargs_repr(self._kwargs)}, " \
               f"in_channels={in_channels if in_channels else None})"


class BatchNorm(_BatchNormBase):
    """Batch normalization: normalize each channel by the batch statistics in
    training and by the running statistics in prediction.

    Parameters
    ----------
    axis : int
        The channel axis (1 for ``NCHW``, -1 for channel-last layouts).
    momentum : float
        Running statistics update ``running = running * momentum + batch * (1 - momentum)``.
    epsilon : float
        Added to the variance.
    center, scale : bool
        Learn ``beta`` / ``gamma`` (otherwise they stay 0 / 1; ``scale=False`` is the
        operator's ``fix_gamma=True``).
    use_global_stats : bool
        Use the running statistics in training too.
    beta_initializer, gamma_initializer, running_mean_initializer,
    running_variance_initializer : Initializer or str
        Initializers of the four parameters.
    in_channels : int
        Number of channels; 0 defers it to the first forward.
    """


class BatchNormReLU(_BatchNormBase):
    """Batch normalization followed by ReLU, as one operator
    (``_contrib_BatchNormWithReLU``); same arguments as :class:`BatchNorm`."""

    _op = ("contrib", "BatchNormWithReLU")


class _ChannelNorm(HybridBlock):
    """``gamma``/``beta`` of shape ``(channels,)`` learnt when ``scale``/``center``."""

    def __init__(self, kwargs: dict, center: bool, scale: bool, shape: tuple,
                 beta_initializer, gamma_initializer, block_kwargs: dict):
        super().__init__(**block_kwargs)
        self._kwargs = kwargs
        self._center = center
        self._scale = scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=shape, init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=shape, init=beta_initializer,
                                    allow_deferred_init=True)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({_kwargs_repr(self._kwargs)}, " \
               f"in_channels={self.gamma.shape[0]})"


class InstanceNorm(_ChannelNorm):
    """Instance normalization: normalize each sample and channel over the spatial axes.

    Parameters
    ----------
    axis : int
        The channel axis.
    epsilon : float
        Added to the variance.
    center, scale : bool
        Learn ``beta`` / ``gamma`` (``scale`` is off by default, as in MXNet).
    beta_initializer, gamma_initializer : Initializer or str
        Initializers.
    in_channels : int
        Number of channels; 0 defers it to the first forward.
    """

    def __init__(self, axis: int = 1, epsilon: float = 1e-5, center: bool = True,
                 scale: bool = False, beta_initializer="zeros", gamma_initializer="ones",
                 in_channels: int = 0, **kwargs):
        self._epsilon = epsilon
        self._axis = axis
        super().__init__({"eps": epsilon, "axis": axis, "center": center, "scale": scale},
                         center, scale, (in_channels,), beta_initializer, gamma_initializer,
                         kwargs)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        # the operator normalizes with axis 1 as channels: move the channel axis there
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name="fwd",
                              eps=self._epsilon).swapaxes(1, self._axis)


class LayerNorm(_ChannelNorm):
    """Layer normalization: normalize each sample over ``axis``.

    Parameters
    ----------
    axis : int
        The normalized axis (default the last).
    epsilon : float
        Added to the variance.
    center, scale : bool
        Learn ``beta`` / ``gamma``.
    beta_initializer, gamma_initializer : Initializer or str
        Initializers.
    in_channels : int
        Size of ``axis``; 0 defers it to the first forward.
    """

    def __init__(self, axis: int = -1, epsilon: float = 1e-5, center: bool = True,
                 scale: bool = True, beta_initializer="zeros", gamma_initializer="ones",
                 in_channels: int = 0, prefix=None, params=None):
        self._axis = axis
        self._epsilon = epsilon
        super().__init__({"eps": epsilon, "axis": axis, "center": center, "scale": scale},
                         center, scale, (in_channels,), beta_initializer, gamma_initializer,
                         {"prefix": prefix, "params": params})

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


class GroupNorm(_ChannelNorm):
    """Group normalization: split the channels (axis 1) into ``num_groups`` groups and
    normalize each sample and group.

    Parameters
    ----------
    num_groups : int
        Number of groups; ``gamma`` and ``beta`` have one value per group (MXNet 1.9).
    epsilon : float
        Added to the variance.
    center, scale : bool
        Learn ``beta`` / ``gamma``.
    beta_initializer, gamma_initializer : Initializer or str
        Initializers.
    """

    def __init__(self, num_groups: int = 1, epsilon: float = 1e-5, center: bool = True,
                 scale: bool = True, beta_initializer="zeros", gamma_initializer="ones",
                 prefix=None, params=None):
        self._num_groups = num_groups
        self._epsilon = epsilon
        super().__init__({"eps": epsilon, "num_groups": num_groups, "center": center,
                          "scale": scale},
                         center, scale, (num_groups,), beta_initializer, gamma_initializer,
                         {"prefix": prefix, "params": params})

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({_kwargs_repr(self._kwargs)})"
