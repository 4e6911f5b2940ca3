"""MXNet's ``mxnet.numpy_dispatch_protocol``: which official NumPy functions and ufuncs,
called on ``mx.np`` arrays, run ``mx.np``'s own implementation (NumPy's
``__array_function__`` / ``__array_ufunc__`` protocols; the hooks are
:mod:`gluonlite.ndarray.numpy.dispatch`).  A NumPy function not listed here still works
on ``mx.np`` arrays: it runs on host copies and its array results come back as
``mx.np`` arrays.
"""
from __future__ import annotations

import functools

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol",
           "_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST"]

# NumPy functions served by ``mx.np`` (``linalg.X`` for ``numpy.linalg.X``), as in MXNet 1.9
_NUMPY_ARRAY_FUNCTION_LIST = [
    "all", "any", "sometrue", "argmin", "argmax", "around", "round", "round_", "argsort",
    "sort", "append", "broadcast_arrays", "broadcast_to", "clip", "concatenate", "copy",
    "cumsum", "diag", "diagonal", "diagflat", "dot", "expand_dims", "fix", "flip", "flipud",
    "fliplr", "inner", "insert", "max", "amax", "mean", "min", "amin", "nonzero", "ones_like",
    "atleast_1d", "atleast_2d", "atleast_3d", "prod", "product", "ravel", "repeat", "reshape",
    "roll", "split", "array_split", "hsplit", "vsplit", "dsplit", "squeeze", "stack", "std",
    "sum", "swapaxes", "take", "tensordot", "tile", "transpose", "unique", "unravel_index",
    "diag_indices_from", "delete", "var", "vdot", "vstack", "column_stack", "hstack",
    "dstack", "zeros_like", "linalg.norm", "linalg.cholesky", "linalg.inv", "linalg.solve",
    "linalg.tensorinv", "linalg.tensorsolve", "linalg.pinv", "linalg.eigvals", "linalg.eig",
    "linalg.eigvalsh", "linalg.eigh", "shape", "trace", "tril", "meshgrid", "outer",
    "einsum", "polyval", "shares_memory", "may_share_memory", "quantile", "percentile",
    "diff", "ediff1d", "resize", "where", "full_like", "bincount", "empty_like",
    "nan_to_num", "isnan", "isfinite", "isposinf", "isneginf", "isinf", "pad",
]

# NumPy ufuncs served by ``mx.np``
_NUMPY_ARRAY_UFUNC_LIST = [
    "abs", "fabs", "add", "arctan2", "copysign", "degrees", "hypot", "lcm", "subtract",
    "multiply", "true_divide", "negative", "power", "mod", "matmul", "absolute", "rint",
    "sign", "exp", "log", "log2", "log10", "expm1", "sqrt", "square", "cbrt", "reciprocal",
    "invert", "bitwise_not", "remainder", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "maximum", "minimum",
    "ceil", "trunc", "floor", "bitwise_and", "bitwise_xor", "bitwise_or", "logical_not",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
]


def _protocol(func):
    """A test decorator: NumPy >= 1.17 always has both protocols, so ``func`` runs as is."""
    @functools.wraps(func)
    def run(*args, **kwargs):
        return func(*args, **kwargs)
    return run


def with_array_function_protocol(func):
    """Run ``func`` only where NumPy has ``__array_function__`` (every supported NumPy)."""
    return _protocol(func)


def with_array_ufunc_protocol(func):
    """Run ``func`` only where NumPy has ``__array_ufunc__`` (every supported NumPy)."""
    return _protocol(func)
