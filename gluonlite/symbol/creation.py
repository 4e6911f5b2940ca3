"""``sym.var`` and the creation helpers of MXNet's symbol module (``zeros``, ``ones``,
``full``, ``arange``, ``linspace``, ``eye``)."""
from __future__ import annotations

import numpy as np

from ..attribute import AttrScope
from ..base import MXNetError
from .graph import variable_node
from .symbol import Symbol

__all__ = ["var", "Variable", "zeros", "ones", "full", "arange", "linspace", "eye"]

# MXNet's dtype codes as stored in ``__dtype__``
DTYPE_CODES = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5,
               "int64": 6, "bool": 7, "int16": 8, "uint16": 9, "uint32": 10, "uint64": 11,
               "bfloat16": 12}
DTYPE_NAMES = {v: k for k, v in DTYPE_CODES.items()}
STYPE_CODES = {"default": 0, "row_sparse": 1, "csr": 2}


def declared_stype(attrs: dict) -> str:
    """The storage type a variable's attributes declare (``__storage_type__``)."""
    code = attrs.get("__storage_type__")
    for name, value in STYPE_CODES.items():
        if code == str(value):
            return name
    return "default"


def _dtype_code(dtype) -> int:
    if isinstance(dtype, str) and dtype == "bfloat16":
        name = "bfloat16"
    else:
        dt = np.dtype(dtype)
        # MXNet's bfloat16 is the record dtype [('bfloat16', '<u2')]
        name = "bfloat16" if dt.names == ("bfloat16",) else dt.name
    if name == "bfloat16":
        raise MXNetError("var: dtype bfloat16 is not supported: NumPy and CuPy have no "
                         "bfloat16 arithmetic")
    if name not in DTYPE_CODES:
        raise MXNetError(f"var: dtype {name} has no MXNet dtype code")
    return DTYPE_CODES[name]


def var(name: str, attr: dict | None = None, shape=None, lr_mult=None, wd_mult=None,
        dtype=None, init=None, stype=None, **kwargs) -> Symbol:
    """A variable symbol (an argument or auxiliary state of a graph).

    Parameters
    ----------
    name : str
        Variable name.
    attr : dict of str to str, optional
        Extra attributes (merged over the current ``AttrScope``).
    shape : tuple, optional
        Shape hint for inference (``__shape__``; 0 marks an unknown dimension).
    lr_mult, wd_mult : float, optional
        Learning-rate and weight-decay multipliers (``__lr_mult__``, ``__wd_mult__``).
    dtype : str or numpy dtype, optional
        Type hint (``__dtype__``, stored as MXNet's dtype code).
    init : Initializer or str, optional
        Initializer (``__init__``: the string, or ``init.dumps()``).
    stype : {'default', 'row_sparse', 'csr'}, optional
        Storage type (``__storage_type__`` code).
    **kwargs : str
        More attributes, each named ``__key__``.
    """
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    from .symbol import user_key
    attrs = AttrScope.current.get(attr)
    if shape is not None:
        attrs["__shape__"] = str(shape)
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(_dtype_code(dtype))
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        attrs["__storage_type__"] = str(STYPE_CODES[stype])
    for key, value in kwargs.items():
        if not (key.startswith("__") and key.endswith("__")):
            raise ValueError(f"Attribute name={key} is not supported. Additional attributes "
                             "must start and end with double underscores, e.g, __yourattr__")
        attrs[key] = str(value)
    extra = {}
    for key, value in attrs.items():
        if not isinstance(value, str):
            raise ValueError("Set Attr only accepts string values")
        extra[user_key(key)] = value
    return Symbol([(variable_node(name, extra), 0)])


Variable = var


def _fn(name: str):
    from . import _api
    return _api.function(name)


def zeros(shape, dtype=None, **kwargs) -> Symbol:
    """A symbol of zeros of ``shape`` (float32 unless ``dtype``)."""
    return _fn("_zeros")(shape=shape, dtype=dtype or np.float32, **kwargs)


def ones(shape, dtype=None, **kwargs) -> Symbol:
    """A symbol of ones of ``shape`` (float32 unless ``dtype``)."""
    return _fn("_ones")(shape=shape, dtype=dtype or np.float32, **kwargs)


def full(shape, val, dtype=None, **kwargs) -> Symbol:
    """A symbol of ``shape`` filled with ``val``."""
    return _fn("_full")(shape=shape, dtype=dtype or np.float32, value=float(val), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None,
           dtype=None) -> Symbol:
    """Evenly spaced values in ``[start, stop)`` (``stop=None`` counts from 0 to ``start``)."""
    return _fn("_arange")(start=start, stop=stop, step=step, repeat=repeat,
                          infer_range=infer_range, name=name, dtype=dtype or np.float32)


def linspace(start, stop, num, endpoint=True, name=None, dtype=None) -> Symbol:
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    return _fn("_linspace")(start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                            dtype=dtype or np.float32)


def eye(N, M=0, k=0, dtype=None, **kwargs) -> Symbol:
    """A 2-D symbol with ones on the ``k``-th diagonal."""
    return _fn("_eye")(N=N, M=M, k=k, dtype=dtype or np.float32, **kwargs)
