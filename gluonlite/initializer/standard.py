"""MXNet's standard initializers: ``Zero``, ``One``, ``Constant``, ``Uniform``, ``Normal``,
``Orthogonal``, ``Xavier``, ``MSRAPrelu``, ``Bilinear`` and ``LSTMBias``."""
from __future__ import annotations

import json

import numpy as np

from .. import random
from ..ndarray.ndarray import NDArray
from .base import (Initializer, InitValueError, _bilinear_kernel, _random_fill, alias,
                   register)

__all__ = ["Zero", "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu",
           "Bilinear", "LSTMBias"]


@register
@alias("zeros")
class Zero(Initializer):
    """Fill with 0 (registered as ``zero`` and ``zeros``)."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _, arr) -> None:
        arr[:] = 0


@register
@alias("ones")
class One(Initializer):
    """Fill with 1 (registered as ``one`` and ``ones``)."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _, arr) -> None:
        arr[:] = 1


@register
class Constant(Initializer):
    """Fill with ``value`` (a number, or an array that broadcasts to the parameter)."""

    def __init__(self, value) -> None:
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr) -> None:
        arr[:] = self.value

    def dumps(self) -> str:
        val = self._kwargs["value"]
        if isinstance(val, np.generic):  # json cannot write NumPy scalars (MXNet fails here)
            self._kwargs["value"] = val.item()
        elif not np.isscalar(val):
            if isinstance(val, NDArray):
                val = val.asnumpy()
            self._kwargs["value"] = val.tolist() if isinstance(val, np.ndarray) else val
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Draw weights uniformly from ``[-scale, scale)``."""

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, name, arr) -> None:
        _random_fill(name, "Uniform", "uniform", -self.scale, self.scale, arr)


@register
class Normal(Initializer):
    """Draw weights from a normal distribution with mean 0 and std ``sigma``."""

    def __init__(self, sigma: float = 0.01) -> None:
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, name, arr) -> None:
        _random_fill(name, "Normal", "normal", 0, self.sigma, arr)


@register
class Orthogonal(Initializer):
    """Orthogonal weights (Saxe et al., 2013): the weight, seen as a
    ``(shape[0], prod(shape[1:]))`` matrix, has orthonormal rows or columns times ``scale``.

    Parameters
    ----------
    scale : float
        Scale of the orthonormal matrix.
    rand_type : {'uniform', 'normal'}
        Distribution of the random matrix whose SVD gives the weight.
    """

    def __init__(self, scale: float = 1.414, rand_type: str = "uniform") -> None:
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, name, arr) -> None:
        shape = tuple(arr.shape)
        if len(shape) < 2:
            raise InitValueError(f"Orthogonal initializer cannot be applied to parameter {name} "
                                 f"of shape {shape}. It requires at least 2D.")
        nout, nin = shape[0], int(np.prod(shape[1:]))
        if self.rand_type == "uniform":
            tmp = random.uniform(-1.0, 1.0, shape=(nout, nin)).asnumpy()
        elif self.rand_type == "normal":
            tmp = random.normal(0.0, 1.0, shape=(nout, nin)).asnumpy()
        else:
            raise InitValueError(f"Unknown random type {self.rand_type!r} of Orthogonal "
                                 "initializer (expected 'uniform' or 'normal')")
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        arr[:] = self.scale * res.reshape(shape)


@register
class Xavier(Initializer):
    """Xavier/Glorot initialization: scale ``sqrt(magnitude / factor)``.

    ``fan_in = shape[1] * hw`` and ``fan_out = shape[0] * hw`` with ``hw`` the product
    of the dimensions after the second (the kernel size of a convolution).

    Parameters
    ----------
    rnd_type : {'uniform', 'gaussian'}
        Uniform on ``[-scale, scale)`` or normal with std ``scale``.
    factor_type : {'avg', 'in', 'out'}
        ``factor`` is ``(fan_in + fan_out) / 2``, ``fan_in`` or ``fan_out``.
    magnitude : float
        Scale of the random numbers.
    """

    def __init__(self, rnd_type: str = "uniform", factor_type: str = "avg",
                 magnitude: float = 3) -> None:
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr) -> None:
        shape = tuple(arr.shape)
        if len(shape) < 2:
            raise InitValueError(f"Xavier initializer cannot be applied to vector {name}. "
                                 "It requires at least 2D.")
        hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise InitValueError(f"Incorrect factor type {self.factor_type!r} for parameter "
                                 f"{name} (expected 'avg', 'in' or 'out')")
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _random_fill(name, "Xavier", "uniform", -scale, scale, arr)
        elif self.rnd_type == "gaussian":
            _random_fill(name, "Xavier", "normal", 0, scale, arr)
        else:
            raise InitValueError(f"Unknown random type {self.rnd_type!r} for parameter {name} "
                                 "(expected 'uniform' or 'gaussian')")


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization for PReLU: Gaussian Xavier with
    ``magnitude = 2 / (1 + slope ** 2)``.

    Parameters
    ----------
    factor_type : {'avg', 'in', 'out'}
        See :class:`Xavier`.
    slope : float
        Negative slope of the PReLU (0 for ReLU).
    """

    def __init__(self, factor_type: str = "avg", slope: float = 0.25) -> None:
        magnitude = 2.0 / (1 + slope ** 2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear interpolation kernel of a ``(num_filter, channels, h, w)`` deconvolution
    weight (for upsampling)."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, name, arr) -> None:
        arr[:] = _bilinear_kernel(name, tuple(arr.shape))


@register
class LSTMBias(Initializer):
    """Bias of an LSTM cell: 0, except ``forget_bias`` for the forget gate (the second
    quarter of the vector).  Reached through ``_init_weight`` (e.g. ``init=LSTMBias()``
    on a parameter); the ``bias`` ending alone gives zeros.
    """

    def __init__(self, forget_bias: float = 1.0) -> None:
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr) -> None:
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden:2 * num_hidden] = self.forget_bias
