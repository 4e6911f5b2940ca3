"""Samples for elementwise unary operators."""
import math

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(1)
_x = _rng.uniform(-2, 2, size=(3, 4))
_x[np.abs(_x) < 0.1] = 0.5  # keep away from kinks for finite differences
_pos = _rng.uniform(0.2, 3, size=(3, 4))
_unit = _rng.uniform(-0.9, 0.9, size=(3, 4))  # inside (-1, 1)
_gt1 = _rng.uniform(1.2, 4, size=(2, 3))
# values away from integers and halves, for rounding ops; plus exact halves (no grad)
_frac = np.array([[-2.3, -1.7, -0.8, -0.2], [0.2, 0.6, 1.3, 2.8]])
_halves = np.array([-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.0, -0.2, 0.7, -0.7])
_ints = np.array([[-3, 0, 4], [7, -1, 2]], dtype=np.int32)
_gam = np.array([[0.3, 1.7, 2.5, 4.2], [-0.4, -1.3, -2.6, 6.0]])

_vec = np.vectorize
_DEG = float(np.float32(180.0) / np.float32(math.pi))
_RAD = float(np.float32(math.pi / 180.0))


def _round_ref(x):
    return np.where(np.abs(x - np.trunc(x)) >= 0.5, np.trunc(x) + np.sign(x), np.trunc(x))


def _rint_ref(x):
    f = np.floor(x)
    return np.where(x - f > 0.5, f + 1, f)


def _int_ref(fn):
    """Reference for integer inputs: compute in float64, truncate to the dtype."""
    return lambda x: np.trunc(fn(x.astype(np.float64))).astype(x.dtype)


def _u(ref, *inputs, **kw):
    return [Sample([a], ref=ref if a.dtype.kind == "f" else _int_ref(ref), **kw)
            for a in inputs]


SAMPLES = {
    "relu": _u(lambda x: np.maximum(x, 0), _x, _ints),
    "sigmoid": _u(lambda x: 1 / (1 + np.exp(-x)), _x),
    "softsign": _u(lambda x: x / (1 + np.abs(x)), _x),
    "exp": _u(np.exp, _x, np.array([0, 1, 4], dtype=np.int32)),
    "expm1": _u(np.expm1, _x),
    "log": _u(np.log, _pos),
    "log10": _u(np.log10, _pos),
    "log2": _u(np.log2, _pos),
    "log1p": _u(np.log1p, _pos - 0.1),
    "sqrt": _u(np.sqrt, _pos, np.array([0, 4, 10], dtype=np.int32)),
    "rsqrt": _u(lambda x: 1 / np.sqrt(x), _pos),
    "cbrt": _u(np.cbrt, _x),
    "rcbrt": _u(lambda x: 1 / np.cbrt(x), _x),
    "reciprocal": _u(lambda x: 1 / x, _x),
    "square": _u(np.square, _x, _ints),
    "negative": _u(np.negative, _x, _ints),
    "abs": _u(np.abs, _x, _ints),
    "sign": _u(np.sign, _x, _ints),
    "round": _u(_round_ref, _frac, _ints) + _u(_round_ref, _halves, grad=False),
    "rint": _u(_rint_ref, _frac, _ints) + _u(_rint_ref, _halves, grad=False),
    "ceil": _u(np.ceil, _frac, _ints),
    "floor": _u(np.floor, _frac, _ints),
    "trunc": _u(np.trunc, _frac, _ints),
    "fix": _u(np.trunc, _frac, _ints),
    "logical_not": _u(lambda x: (x == 0).astype(x.dtype), np.array([0.0, 1.5, -2.0, 0.0]),
                      np.array([0, 3, -1], dtype=np.int32)),
    "sin": _u(np.sin, _x, _ints),
    "cos": _u(np.cos, _x),
    "tan": _u(np.tan, _unit),
    "arcsin": _u(np.arcsin, _unit),
    "arccos": _u(np.arccos, _unit),
    "arctan": _u(np.arctan, _x),
    "sinh": _u(np.sinh, _x),
    "cosh": _u(np.cosh, _x),
    "tanh": _u(np.tanh, _x),
    "arcsinh": _u(np.arcsinh, _x),
    "arccosh": _u(np.arccosh, _gt1),
    "arctanh": _u(np.arctanh, _unit),
    "degrees": _u(lambda x: x * _DEG, _x) + _u(lambda x: x * _DEG, _ints),
    "radians": _u(lambda x: x * _RAD, _x),
    "erf": _u(_vec(math.erf), _x * 1.5, rtol=1e-12) + [
        Sample([_x.astype(np.float32)], ref=_vec(math.erf), rtol=1e-6, grad=False,
               name="float32")],
    "erfinv": _u(lambda y: _erfinv_ref(y), _unit, rtol=1e-10),
    "gamma": _u(_vec(math.gamma), _gam, rtol=1e-11),
    "gammaln": _u(_vec(math.lgamma), _gam, rtol=1e-11, atol=1e-12),
}


def _erfinv_ref(y):
    """Bisection on math.erf (reference only)."""
    lo = np.full(y.shape, -6.0)
    hi = np.full(y.shape, 6.0)
    erf = _vec(math.erf)
    for _ in range(80):
        mid = (lo + hi) / 2
        below = erf(mid) < y
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return (lo + hi) / 2
