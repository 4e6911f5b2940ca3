"""``mx.init`` / ``mx.initializer``: weight initializers (MXNet 1.9).

An initializer is called as ``init(desc, arr)`` and writes ``arr`` in place
(``arr[:] = ...``; the array keeps its dtype).  ``desc`` is an :class:`InitDesc`,
the parameter's name with its attributes.  When the attributes carry
``__init__`` (an initializer's ``dumps()`` string, a registered name or an
instance), that initializer's ``_init_weight`` fills the array; otherwise the
name's ending picks the method: ``weight`` -> ``_init_weight``, ``bias`` -> 0,
``gamma`` -> 1, ``beta`` -> 0, ``min`` -> 0, ``max`` -> 1, ``weight_quantize``,
``bias_quantize``; any other name raises.  Calling with a plain ``str`` name is
MXNet's deprecated legacy path, which also knows ``upsampling*`` (bilinear),
``stn_loc*`` and the ``moving_*`` statistics.

Random draws go through ``mx.random`` (so ``mx.random.seed`` makes them
repeatable); the numbers differ from MXNet's, their distributions do not.
"""
from __future__ import annotations

import json
import logging
import re
import warnings
from math import sqrt

import numpy as np

from . import random
from . import registry
from .base import MXNetError
from .ndarray import load
from .ndarray.ndarray import NDArray

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero",
           "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu",
           "Bilinear", "LSTMBias", "FusedRNN"]


class InitValueError(MXNetError, ValueError):
    """An initializer cannot fill a parameter (a ``ValueError`` as in MXNet)."""


class InitAssertionError(MXNetError, AssertionError):
    """A failed initializer check (an ``AssertionError`` as in MXNet)."""


class InitDesc(str):
    """The name of a parameter to initialize, with its attributes.

    Parameters
    ----------
    name : str
        Parameter name (the string value of the descriptor).
    attrs : dict of str to str, optional
        Attributes; ``attrs['__init__']`` names the initializer to use.
    global_init : Initializer, optional
        The initializer that initializes the whole network (set on first use).
    """

    def __new__(cls, name: str, attrs: dict | None = None, global_init=None) -> "InitDesc":
        desc = super().__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc


def _asum_stat(arr) -> str:
    """Default verbose statistic: ``norm(arr) / sqrt(arr.size)``."""
    data = arr.asnumpy() if isinstance(arr, NDArray) else np.asarray(arr)
    dtype = data.dtype if data.dtype.kind == "f" else np.dtype(np.float32)
    value = np.linalg.norm(data.reshape(-1).astype(dtype)).astype(dtype)
    return str(value / dtype.type(sqrt(data.size)))


def _random_fill(name: str, who: str, dist: str, a: float, b: float, arr) -> None:
    """Draw ``uniform(a, b)`` or ``normal(a, b)`` into ``arr`` (NDArray or NumPy array)."""
    dtype = np.dtype(arr.dtype)
    if dtype.kind != "f":
        raise InitValueError(f"{who}: cannot draw random values into parameter {name} of dtype "
                             f"{dtype.name} and shape {tuple(arr.shape)}; the samplers write "
                             "float16, float32 or float64")
    sampler = random.uniform if dist == "uniform" else random.normal
    if isinstance(arr, NDArray):
        # drawn on the array's own device, straight into it
        sampler(a, b, shape=tuple(arr.shape), dtype=dtype.name, ctx=arr.context, out=arr)
    else:
        arr[...] = sampler(a, b, shape=tuple(arr.shape), dtype=dtype.name).asnumpy()


class Initializer:
    """The base class of initializers.

    Subclasses override ``_init_weight(self, name, arr)`` (and, where the
    defaults do not fit, ``_init_bias``, ``_init_gamma``, ``_init_beta`` or
    ``_init_default``) and pass their constructor arguments to
    ``super().__init__(**kwargs)`` so that :meth:`dumps` can describe them.
    """

    def __init__(self, **kwargs) -> None:
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose: bool = False, print_func=None) -> "Initializer":
        """Log every initialized array (``logging.info``) with a statistic of its values.

        Parameters
        ----------
        verbose : bool
            Whether to log.
        print_func : callable, optional
            ``print_func(arr) -> str``; by default ``norm(arr) / sqrt(arr.size)``.

        Returns
        -------
        Initializer
            ``self``.
        """
        self._verbose = verbose
        self._print_func = print_func if print_func is not None else _asum_stat
        return self

    def _verbose_print(self, desc, init, arr) -> None:
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self) -> str:
        """The initializer as JSON: ``'["<lowercased class name>", {kwargs}]'``; ``create``
        and the ``__init__`` attribute of a variable read it back.
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = None  # initializers compare by value, as in MXNet

    def __call__(self, desc, arr) -> None:
        """Initialize an array.

        Parameters
        ----------
        desc : InitDesc
            The parameter's name and attributes (a plain ``str`` takes MXNet's deprecated
            legacy path).
        arr : NDArray
            The array to fill in place.
        """
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffix, method in _SUFFIX_METHODS:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr) -> None:
        """``init(str, NDArray)``: MXNet's deprecated dispatch on the name alone."""
        warnings.warn("\033[91mCalling initializer with init(str, NDArray) has been "
                      "deprecated.please use init(mx.init.InitDesc(...), NDArray) "
                      "instead.\033[0m", DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise TypeError("name must be string")
        if not isinstance(arr, NDArray):
            raise TypeError("arr must be NDArray")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        else:
            for suffix, method in _LEGACY_SUFFIX_METHODS:
                if name.endswith(suffix):
                    getattr(self, method)(name, arr)
                    return
            self._init_default(name, arr)

    def _init_bilinear(self, name, arr) -> None:
        arr[:] = _bilinear_kernel(name, tuple(arr.shape))

    def _init_loc_bias(self, name, arr) -> None:
        if arr.shape[0] != 6:
            raise InitAssertionError(f"stn_loc bias {name} must have 6 elements (an affine "
                                     f"transform), got shape {tuple(arr.shape)}")
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _, arr) -> None:
        arr[:] = 0.0

    def _init_one(self, _, arr) -> None:
        arr[:] = 1.0

    def _init_bias(self, _, arr) -> None:
        arr[:] = 0.0

    def _init_quantized_bias(self, _, arr) -> None:
        arr[:] = 0

    def _init_gamma(self, _, arr) -> None:
        arr[:] = 1.0

    def _init_beta(self, _, arr) -> None:
        arr[:] = 0.0

    def _init_weight(self, name, arr) -> None:
        """Fill a weight; subclasses must override it."""
        raise NotImplementedError("Must override it")

    def _init_quantized_weight(self, _, arr) -> None:
        # one draw for the whole array, as MXNet does
        value = random.randint(-127, 127, dtype="int32").asnumpy()
        arr[:] = np.int8(value)

    def _init_default(self, name, _) -> None:
        raise InitValueError(
            f"Unknown initialization pattern for {name}. Default initialization is now limited "
            'to "weight", "bias", "gamma" (1.0), and "beta" (0.0).Please use '
            "mx.sym.Variable(init=mx.init.*) to set initialization pattern")


# Name endings checked in order by Initializer.__call__ and by the legacy path.
_SUFFIX_METHODS = (("weight", "_init_weight"), ("bias", "_init_bias"), ("gamma", "_init_gamma"),
                   ("beta", "_init_beta"), ("min", "_init_zero"), ("max", "_init_one"),
                   ("weight_quantize", "_init_quantized_weight"),
                   ("bias_quantize", "_init_quantized_bias"))
_LEGACY_SUFFIX_METHODS = (("bias", "_init_bias"), ("gamma", "_init_gamma"),
                          ("beta", "_init_beta"), ("weight", "_init_weight"),
                          ("moving_mean", "_init_zero"), ("moving_var", "_init_one"),
                          ("moving_inv_var", "_init_zero"), ("moving_avg", "_init_zero"),
                          ("min", "_init_zero"), ("max", "_init_one"))


def _bilinear_kernel(name: str, shape: tuple) -> np.ndarray:
    """The bilinear upsampling kernel of a ``(num_filter, channels, h, w)`` weight, float32.

    Both the x and y weights use the width ``shape[3]``; element ``i`` of the flat
    array has ``x = i % w`` and ``y = (i // w) % h``, as in MXNet.
    """
    if len(shape) < 4:
        raise InitValueError(f"Bilinear initializer needs a 4-D weight (num_filter, channels, "
                             f"height, width); parameter {name} has shape {shape}")
    height, width = shape[2], shape[3]
    f = np.ceil(width / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    flat = np.arange(int(np.prod(shape)))
    x = flat % width
    y = (flat // width) % height
    kernel = (1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))
    return kernel.astype(np.float32).reshape(shape)


_register = registry.get_register_func(Initializer, "initializer")
alias = registry.get_alias_func(Initializer, "initializer")
create = registry.get_create_func(Initializer, "initializer")
create.__doc__ = """Create an initializer from a config.

Parameters
----------
initializer : str, dict or Initializer
    An instance (returned as is), a registered name (``'xavier'``, ``'zeros'``; case
    does not matter), or a ``dumps()`` string such as ``'["xavier", {"magnitude": 2}]'``.
**kwargs
    Arguments of the constructor.
"""


def register(klass: type) -> type:
    """Register a custom initializer under its lowercased class name.

    Custom initializers extend :class:`Initializer` and implement ``_init_weight``
    (and, if needed, ``_init_bias``).  Once registered they can be named in
    ``create('custominit')``, ``Parameter(init='custominit')`` or a variable's
    ``__init__`` attribute.

    Example
    -------
    >>> @mx.init.register
    ... @mx.init.alias('myinit')
    ... class CustomInit(mx.init.Initializer):
    ...     def _init_weight(self, _, arr):
    ...         arr[:] = 0.1
    """
    return _register(klass)


class Load:
    """Initialize parameters from saved values, by name.

    Parameters
    ----------
    param : str or dict of str to NDArray
        A file written by ``nd.save`` (or a dict); ``arg:`` and ``aux:`` prefixes of
        the names are dropped.
    default_init : Initializer, optional
        Used for parameters not in ``param``.
    verbose : bool
        Log where each parameter came from.
    """

    def __init__(self, param, default_init=None, verbose: bool = False) -> None:
        if isinstance(param, str):
            param = load(param)
        if not isinstance(param, dict):
            raise InitAssertionError("Load initializer needs a dict of named arrays (or a file "
                                     f"saved from one); got {type(param).__name__}")
        self.param = {}
        for name, arr in param.items():
            if name.startswith("arg:") or name.startswith("aux:"):
                name = name[4:]
            self.param[name] = arr
        if isinstance(default_init, (str, dict)):
            default_init = create(default_init)
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr) -> None:
        """Copy the saved value of ``name`` into ``arr``, or use the default initializer."""
        if name in self.param:
            saved = self.param[name]
            if tuple(arr.shape) != tuple(saved.shape):
                raise InitAssertionError(
                    f"Parameter {name} cannot be initialized from loading. Shape mismatch, "
                    f"target {tuple(arr.shape)} vs loaded {tuple(saved.shape)}")
            arr[:] = saved
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            if self.default_init is None:
                raise InitAssertionError(
                    f"Cannot Initialize {name}. Not found in loaded param and no default "
                    "Initializer is provided.")
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


class Mixed:
    """Initialize each parameter with the first initializer whose pattern matches its name.

    Parameters
    ----------
    patterns : list of str
        Regular expressions, matched at the start of the name (``re.match``).
    initializers : list of Initializer
        One initializer (or registered name) per pattern.
    """

    def __init__(self, patterns, initializers) -> None:
        if len(patterns) != len(initializers):
            raise InitAssertionError(f"Mixed: {len(patterns)} patterns but "
                                     f"{len(initializers)} initializers")
        inits = [create(i) if isinstance(i, (str, dict)) else i for i in initializers]
        self.map = list(zip([re.compile(p) for p in patterns], inits))

    def __call__(self, name, arr) -> None:
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise InitValueError(f"Parameter name {name} did not match any pattern. Consider"
                             'add a ".*" pattern at the and with default Initializer.')


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


from .initializer_rnn import FusedRNN  # noqa: E402  (needs Initializer and register)
