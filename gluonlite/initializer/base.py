"""The initializer protocol of ``mx.init``: :class:`Initializer` (name endings pick the
method, ``__init__`` attributes pick the initializer), :class:`InitDesc`, the registry
(``register``, ``alias``, ``create``) and the errors."""
from __future__ import annotations

import json
import logging
import warnings
from math import sqrt

import numpy as np

from .. import random
from .. import registry
from ..base import MXNetError
from ..ndarray.ndarray import NDArray

__all__ = ["InitDesc", "Initializer", "InitValueError", "InitAssertionError", "register",
           "alias", "create"]


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
