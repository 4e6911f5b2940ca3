"""Fluent methods: ``x.sum(axis=1)``, ``x.exp()``, ... call the ``nd`` function of
the same name with ``x`` as the first input, as MXNet's NDArray methods do."""
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


def install() -> None:
    """Attach every fluent method whose operator is registered."""
    from . import _api
    for m in FLUENT_METHODS:
        fname = _RENAMED.get(m, m)
        if fname in _api._functions and not hasattr(NDArray, m):
            setattr(NDArray, m, _make(m, fname))
    if "SwapAxis" in _api._functions and not hasattr(NDArray, "swapaxes"):
        setattr(NDArray, "swapaxes", _make("swapaxes", "SwapAxis"))

    def as_np_ndarray(self):
        return self
    NDArray.as_nd_ndarray = as_np_ndarray

    def broadcast_to(self, shape):
        from . import _api
        return _api.function("broadcast_to")(self, shape=shape)
    NDArray.broadcast_to = broadcast_to
