"""NumPy's dispatch protocols for ``mx.np`` arrays (MXNet's
``numpy_dispatch_protocol``): ``onp.sum(x)`` or ``onp.sin(x)`` on an ``mx.np`` array runs
``mx.np.sum``/``mx.np.sin``; a NumPy function ``mx.np`` lacks runs on host copies and
its array results come back as ``mx.np`` arrays (:func:`run_on_host`).
"""
from __future__ import annotations

import inspect

import numpy as onp

from ..ndarray import NDArray

__all__ = ["array_function", "array_ufunc", "run_on_host", "to_host", "from_host"]


def to_host(obj):
    """``obj`` with every array in it (lists, tuples, dicts too) as a NumPy array."""
    if isinstance(obj, NDArray):
        return obj.asnumpy()
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_host(v) for v in obj)
    if isinstance(obj, dict):
        return {k: to_host(v) for k, v in obj.items()}
    return obj


def from_host(obj, ctx):
    """``obj`` with every NumPy array in it as an ``mx.np`` array on ``ctx``."""
    from ._array import ndarray
    if isinstance(obj, onp.ndarray):
        return ndarray(ctx.xp.asarray(obj) if ctx.device_typeid == 2 else obj, ctx)
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(from_host(v, ctx) for v in obj)
    return obj


def _context(args, kwargs):
    from ...context import current_context
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, NDArray):
            return v.context
        if isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, NDArray):
                    return w.context
    return current_context()


def run_on_host(func, args, kwargs):
    """``func`` (a NumPy function) on host copies of the arrays; results back as
    ``mx.np`` arrays on the device of the first array argument (no gradient)."""
    ctx = _context(args, kwargs)
    return from_host(func(*to_host(args), **to_host(kwargs)), ctx)


def _mx_impl(func):
    """``mx.np``'s own function for NumPy's ``func``, or None."""
    from . import _op, linalg
    module = linalg if (getattr(func, "__module__", None) or "").endswith("linalg") else _op
    name = func.__name__
    return getattr(module, name, None) if name in module.__all__ else None


def array_function(func, types, args, kwargs):
    """``__array_function__``: ``mx.np``'s function of the same name, else NumPy's on host
    copies."""
    impl = _mx_impl(func)
    if impl is not None:
        if len(args) > 1:
            args, kwargs = _by_numpy_names(func, impl, args, kwargs)
        return impl(*args, **kwargs)
    return run_on_host(func, args, kwargs)


def _by_numpy_names(func, impl, args, kwargs):
    """``args`` past the first bound to NumPy's parameter names, as keywords, where
    ``impl`` takes those names: the positional order of some ``mx.np`` functions is
    MXNet's (``max(a, axis, keepdims, out)``), not NumPy's (``max(a, axis, out,
    keepdims)``)."""
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
        params = inspect.signature(impl).parameters
    except (TypeError, ValueError):  # no signature, or not NumPy's call: pass as given
        return args, kwargs
    names = list(bound.arguments)
    if any(p.kind is p.VAR_POSITIONAL for p in params.values()) or \
            not all(n in params for n in names[1:]):
        return args, kwargs
    return (bound.arguments[names[0]],), {n: bound.arguments[n] for n in names[1:]}


def array_ufunc(ufunc, method, inputs, kwargs):
    """``__array_ufunc__``: a NumPy ufunc call on ``mx.np`` arrays runs ``mx.np``'s
    function of the same name (``out=(x,)`` becomes ``out=x``)."""
    out = kwargs.pop("out", None)
    if out is not None:
        kwargs["out"] = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if method == "__call__":
        impl = _mx_impl(ufunc)
        if impl is not None:
            return impl(*inputs, **kwargs)
    return run_on_host(getattr(ufunc, method), inputs, kwargs)
