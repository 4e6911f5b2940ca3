"""Operators (``+``, ``<``, ``@``, ``+=``) and NumPy methods (``x.sum()``, ``x.T``) of
``mx.np.ndarray``, each the ``mx.np`` function of the same name."""
from __future__ import annotations

from ...base import MXNetError
from . import _op
from ._array import ndarray, recording

_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "div": "true_divide", "mod": "mod", "pow": "power", "matmul": "matmul",
    "floordiv": "floor_divide", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
}
_COMPARE = {"eq": "equal", "ne": "not_equal", "gt": "greater", "ge": "greater_equal",
            "lt": "less", "le": "less_equal"}


def _forward(fname):
    op_name = _op._BINARY_NAMES.get(fname)
    if op_name is not None:  # straight to the operator: ``x + y`` is on every hot path
        binary = _op._binary

        def method(self, other):
            return binary(op_name, self, other)
        return method

    def method(self, other):
        return getattr(_op, fname)(self, other)
    return method


def _reflected(fname):
    op_name = _op._BINARY_NAMES.get(fname)
    if op_name is not None:
        binary = _op._binary

        def method(self, other):
            return binary(op_name, other, self)
        return method

    def method(self, other):
        return getattr(_op, fname)(other, self)
    return method


def _inplace(fname):
    def method(self, other):
        if recording(self):
            raise MXNetError("Inplace operations (+=, -=, x[:]=, etc) are not supported when "
                             "recording with autograd.")
        res = getattr(_op, fname)(self, other)
        if res.shape != self.shape:
            raise MXNetError(f"non-broadcastable output operand with shape {self.shape} "
                             f"doesn't match the broadcast shape {res.shape}")
        self._data[...] = res._data
        self._bump()
        return self
    return method


def _compare(fname):
    binary = _op._binary

    def method(self, other):
        if other is None:
            return False if fname == "equal" else True
        return binary(fname, self, other)
    return method


def _fluent(fname):
    def method(self, *args, **kwargs):
        return getattr(_op, fname)(self, *args, **kwargs)
    method.__name__ = fname
    method.__doc__ = f"``mx.np.{fname}(self, ...)``."
    return method


def _reduction_method(fname, with_dtype: bool):
    """``x.<fname>(axis, [dtype,] out, keepdims)``: NumPy's (and MXNet's) method order,
    which differs from the module functions' (``keepdims`` before ``out``)."""
    if with_dtype:
        def method(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
            return getattr(_op, fname)(self, axis=axis, dtype=dtype, out=out,
                                       keepdims=keepdims, **kwargs)
    else:
        def method(self, axis=None, out=None, keepdims=False):
            return getattr(_op, fname)(self, axis=axis, out=out, keepdims=keepdims)
    method.__name__ = fname
    method.__doc__ = f"``mx.np.{fname}(self, ...)``."
    return method


_REDUCTIONS = {"sum": True, "prod": True, "max": False, "min": False, "all": False,
               "any": False}
_FLUENT = ("mean", "std", "var", "argmax", "argmin", "cumsum", "round", "swapaxes",
           "repeat", "tile", "take", "sort", "argsort", "dot", "nonzero", "diagonal", "trace",
           "ptp", "squeeze", "flip",
           "abs", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "cbrt", "square",
           "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
           "tanh", "arcsinh", "arccosh", "arctanh", "degrees", "radians", "sign", "floor",
           "ceil", "trunc", "fix", "rint", "expand_dims", "ravel")


def install() -> None:
    """Put the operators and methods on :class:`ndarray`."""
    for dunder, fname in _BINARY.items():
        setattr(ndarray, f"__{dunder}__", _forward(fname))
        setattr(ndarray, f"__r{dunder}__", _reflected(fname))
        setattr(ndarray, f"__i{dunder}__", _inplace(fname))
    for dunder, fname in _COMPARE.items():
        setattr(ndarray, f"__{dunder}__", _compare(fname))
    ndarray.__neg__ = lambda self: _op.negative(self)
    ndarray.__pos__ = lambda self: self.copy()
    ndarray.__abs__ = lambda self: _op.absolute(self)
    ndarray.__invert__ = lambda self: _op.invert(self)
    ndarray.__hash__ = lambda self: id(self)
    for name in _FLUENT:
        setattr(ndarray, name, _fluent(name))
    for name, with_dtype in _REDUCTIONS.items():
        setattr(ndarray, name, _reduction_method(name, with_dtype))
    ndarray.flatten = lambda self, order="C": _op.reshape(self, (-1,)).copy() \
        if not recording(self) else _op.reshape(self, (-1,))
    ndarray.transpose = _transpose_method
    ndarray.zeros_like = lambda self, **kw: _op.zeros_like(self, **kw)
    ndarray.ones_like = lambda self, **kw: _op.ones_like(self, **kw)
    ndarray.broadcast_to = lambda self, shape: _op.broadcast_to(self, shape)
    ndarray.split = lambda self, *a, **kw: _op.split(self, *a, **kw)
    ndarray.norm = lambda self, *a, **kw: _linalg_norm(self, *a, **kw)
    ndarray.clip = _clip_method


def _clip_method(self, min=None, max=None, out=None):  # noqa: A002 - MXNet's names
    """``mx.np.clip(self, min, max)``."""
    return _op.clip(self, min, max, out=out)


def _transpose_method(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (list, tuple))):
        axes = axes[0]
    return _op.transpose(self, axes or None)


def _linalg_norm(self, *args, **kwargs):
    from .linalg import norm
    return norm(self, *args, **kwargs)
