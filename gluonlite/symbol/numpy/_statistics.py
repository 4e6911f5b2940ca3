"""``mx.sym.np``'s statistics: ``polyval``, ``average``, ``percentile``, ``quantile``."""
from __future__ import annotations

from ..symbol import Symbol
from ._op import _axis, _binary, _group, _sym
from ._symbol import _Symbol, apply


def polyval(p, x) -> _Symbol:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``."""
    return apply("_npi_polyval", [_sym(p), _sym(x)])


def average(a, axis=None, weights=None, returned=False):
    """Mean, or weighted mean along ``axis``; with ``returned``, also the sum of the
    weights."""
    ins = [_sym(a)] if weights is None else [_sym(a), _sym(weights)]
    res = apply("_npi_average", ins, axis=_axis(axis), returned=bool(returned),
                weighted=weights is not None)
    return _group(res) if returned else res


def _percentile(a, q, axis, interpolation, keepdims, scale):
    if isinstance(q, Symbol):
        qs = _sym(q) if scale == 1 else _binary("multiply", _sym(q), scale)
        return apply("_npi_percentile", [_sym(a), qs], axis=_axis(axis),
                     interpolation=interpolation, keepdims=bool(keepdims))
    return apply("_npi_percentile", [_sym(a)], axis=_axis(axis), interpolation=interpolation,
                 keepdims=bool(keepdims), q_scalar=float(q) * scale)


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
               keepdims=False) -> _Symbol:
    """The ``q``-th percentile along ``axis``."""
    return _percentile(a, q, axis, interpolation, keepdims, 1)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
             keepdims=False) -> _Symbol:
    """The ``q``-th quantile along ``axis``."""
    return _percentile(a, q, axis, interpolation, keepdims, 100)


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and n not in ("apply", "numbers")
                 and getattr(v, "__module__", "") == __name__)
