"""Products of ``mx.np``: ``dot``, ``matmul``, ``tensordot``, ``inner``, ``outer``, ``einsum``,
``kron``, ``cross``, ``polyval``."""
from __future__ import annotations

import numbers

from ...base import MXNetError
from ._array import ndarray, apply
from ._common import _arr, _out
from ._elementwise import multiply  # noqa: F401 - defined by a loop there
from ._manip import moveaxis, ravel, reshape, stack


def tensordot(a, b, axes=2) -> ndarray:
    """Sum of products over the last ``axes`` axes of ``a`` and the first of ``b``, or
    over the axes given as two sequences."""
    a, b = _arr(a), _arr(b)
    if isinstance(axes, numbers.Integral):
        return apply("_npi_tensordot_int_axes", [a, b], axes=int(axes))
    ax_a, ax_b = axes
    ax_a = (ax_a,) if isinstance(ax_a, numbers.Integral) else tuple(ax_a)
    ax_b = (ax_b,) if isinstance(ax_b, numbers.Integral) else tuple(ax_b)
    return apply("_npi_tensordot", [a, b], a_axes_summed=ax_a, b_axes_summed=ax_b)


def dot(a, b, out=None) -> ndarray:
    """NumPy ``dot``: the last axis of ``a`` with the second-to-last of ``b``."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _out(multiply(a, b), out)
    return _out(apply("_np_dot", [a, b]), out)


def matmul(a, b, out=None) -> ndarray:
    return _out(apply("_npi_matmul", [_arr(a), _arr(b)]), out)


def inner(a, b) -> ndarray:
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b) -> ndarray:
    return multiply(reshape(ravel(a), (-1, 1)), reshape(ravel(b), (1, -1)))


def vdot(a, b) -> ndarray:
    return dot(ravel(a), ravel(b))


def kron(a, b) -> ndarray:
    """The Kronecker product (NumPy's rule: the lower-rank input gets leading axes of
    length one)."""
    a, b = _arr(a), _arr(b)
    if a.ndim < b.ndim:
        a = reshape(a, (1,) * (b.ndim - a.ndim) + a.shape)
    elif b.ndim < a.ndim:
        b = reshape(b, (1,) * (a.ndim - b.ndim) + b.shape)
    ea = reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    eb = reshape(b, tuple(d for s in b.shape for d in (1, s)))
    return reshape(ea * eb, tuple(x * y for x, y in zip(a.shape, b.shape)))


def einsum(subscripts, *operands, out=None, optimize=False) -> ndarray:
    ops = [_arr(x) for x in operands]
    return _out(apply("_npi_einsum", ops, subscripts=subscripts, num_args=len(ops),
                      optimize=int(bool(optimize))), out)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> ndarray:
    a, b = _arr(a), _arr(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise MXNetError(f"cross: only 3-element vectors are supported, got {a.shape} and "
                         f"{b.shape}")
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    c = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, axisc)


def polyval(p, x) -> ndarray:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``."""
    p = _arr(p)
    return apply("_npi_polyval", [p, _arr(x, p.context)])


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", "")
                 == __name__)
