"""Fluent methods on Symbol (``x.sum(axis=1)``, ``x.reshape((2, 3))``): the same list as
NDArray's, each calling the ``sym`` function of that name with ``x`` as first input."""
from __future__ import annotations

from ..ndarray.fluent import FLUENT_METHODS, _RENAMED
from .symbol import Symbol

_EXTRA = {"reshape": "reshape", "swapaxes": "swapaxes", "split_v2": None}


def _make(method: str, func_name: str):
    def method_fn(self, *args, **kwargs):
        from . import _api
        return _api.function(func_name)(self, *args, **kwargs)
    method_fn.__name__ = method
    method_fn.__doc__ = f"Convenience method for ``sym.{func_name}(self, ...)``."
    return method_fn


def install() -> None:
    """Attach every fluent method whose operator is registered."""
    from . import _api
    names = {m: (m if m in _api._functions else _RENAMED.get(m, m)) for m in FLUENT_METHODS}
    names.update({k: v for k, v in _EXTRA.items() if v})
    for method, fname in names.items():
        if fname in _api._functions and not hasattr(Symbol, method):
            setattr(Symbol, method, _make(method, fname))

    def astype(self, dtype, **kwargs):
        """``sym.cast(self, dtype=dtype)``."""
        return _api.function("cast")(self, dtype=dtype, **kwargs)
    Symbol.astype = astype
