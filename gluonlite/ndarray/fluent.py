"""Fluent methods: ``x.sum(axis=1)``, ``x.exp()``, ... call the ``nd`` function of
the same name with ``x`` as the first input, as MXNet's NDArray methods do.

``flatten``, ``expand_dims`` and ``squeeze`` also take MXNet's ``inplace=True``: the
result is then a reshaped view sharing memory with ``x``.
"""
from __future__ import annotations

from .ndarray import NDArray

FLUENT_METHODS = (
    "abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax",
    "argmax_channel", "argmin", "argsort", "broadcast_axes", "broadcast_like",
    "broadcast_to", "cbrt", "ceil", "clip", "cos", "cosh", "degrees", "depth_to_space",
    "diag", "exp", "expand_dims", "expm1", "fix", "flatten", "flip", "floor", "log",
    "log10", "log1p", "log2", "log_softmax", "max", "mean", "min", "nanprod", "nansum",
    "norm", "one_hot", "ones_like", "pad", "pick", "prod", "radians", "rcbrt",
    "reciprocal", "relu", "repeat", "reshape_like", "rint", "round", "rsqrt", "shape_array",
    "sigmoid", "sign", "sin", "sinh", "size_array", "slice", "slice_axis", "slice_like",
    "softmax", "softmin", "sort", "space_to_depth", "split", "sqrt", "square", "squeeze",
    "sum", "swapaxes", "take", "tan", "tanh", "tile", "topk", "transpose", "trunc",
    "zeros_like", "erf", "erfinv", "gamma", "gammaln",
)

_RENAMED = {"flip": "reverse", "split": "split", "broadcast_axes": "broadcast_axis"}


def _make(method: str, func_name: str):
    def method_fn(self, *args, **kwargs):
        from . import _api
        return _api.function(func_name)(self, *args, **kwargs)
    method_fn.__name__ = method
    method_fn.__doc__ = f"Convenience method for ``nd.{func_name}(self, ...)``."
    return method_fn


def _as_np_ndarray(self):
    """The same storage as an ``mx.np`` array (no copy; autograd sees the same array)."""
    from .numpy._array import ndarray
    if isinstance(self, ndarray):
        return self
    if self.stype != "default":
        from ..base import MXNetError
        raise MXNetError(f"as_np_ndarray: only dense arrays convert, this one is {self.stype}")
    v = ndarray(self._data, self._ctx)
    v._chunk = self._get_chunk()
    v._entry, v._grad, v._grad_req = self._entry, self._grad, self._grad_req
    if v._grad is not None:
        v._grad = ndarray(v._grad._data, v._ctx)
    return v


def install() -> None:
    """Attach every fluent method whose operator is registered."""
    from . import _api
    for m in FLUENT_METHODS:
        fname = _RENAMED.get(m, m)
        if fname in _api._functions and not hasattr(NDArray, m):
            setattr(NDArray, m, _make(m, fname))
    if "SwapAxis" in _api._functions and not hasattr(NDArray, "swapaxes"):
        setattr(NDArray, "swapaxes", _make("swapaxes", "SwapAxis"))

    NDArray.flatten = _flatten
    NDArray.expand_dims = _expand_dims
    NDArray.squeeze = _squeeze
    NDArray.split_v2 = _split_v2
    from .indexing import basic_slice_is_contiguous
    NDArray._basic_indexing_slice_is_contiguous = staticmethod(basic_slice_is_contiguous)

    def as_nd_ndarray(self):
        return self
    NDArray.as_nd_ndarray = as_nd_ndarray
    NDArray.as_np_ndarray = _as_np_ndarray

    def broadcast_to(self, shape):
        from . import _api
        return _api.function("broadcast_to")(self, shape=shape)
    NDArray.broadcast_to = broadcast_to


def _call(name, *args, **kwargs):
    from . import _api
    return _api.function(name)(*args, **kwargs)


def _flatten(self, inplace: bool = False):
    """Collapse all axes but the first (``nd.flatten``); with ``inplace`` a view."""
    if not inplace:
        return _call("flatten", self)
    return self.reshape((0, -1))


def _expand_dims(self, axis: int, inplace: bool = False):
    """Insert an axis of size 1 at ``axis`` (``nd.expand_dims``); with ``inplace`` a
    view."""
    if not inplace:
        return _call("expand_dims", self, axis=axis)
    shape = list(self.shape)
    if not -len(shape) - 1 <= axis <= len(shape):
        raise ValueError(f"axis {axis} is out of range for {len(shape)}d array")
    shape.insert(axis + len(shape) + 1 if axis < 0 else axis, 1)
    return self.reshape(shape)


def _squeeze(self, axis=None, inplace: bool = False):
    """Remove axes of size 1 (those of ``axis``, or all; at least one axis stays), as
    ``nd.squeeze``; with ``inplace`` a view."""
    if not inplace:
        return _call("squeeze", self, axis=axis)
    shape = list(self.shape)
    axes = [axis] if isinstance(axis, int) else list(axis or ())
    if axes:
        if len(set(axes)) != len(axes):
            raise ValueError(f"axis {axis} contains duplicates")
        for a in axes:
            if not -len(shape) <= a < len(shape):
                raise ValueError(f"axis {a} is out of range for {len(shape)}d array")
            if shape[a] != 1:
                raise ValueError(f"squeeze target axis {a} must be size 1, got {shape[a]}")
        drop = {a % len(shape) for a in axes}
    else:
        drop = {i for i, d in enumerate(shape) if d == 1}
    return self.reshape([d for i, d in enumerate(shape) if i not in drop] or [1])


def _split_v2(self, *args, **kwargs):
    """Convenience method for ``nd.split_v2(self, ...)``."""
    from .extras import split_v2
    return split_v2(self, *args, **kwargs)
