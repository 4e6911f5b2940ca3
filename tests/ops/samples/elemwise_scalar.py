"""Samples for the array-scalar operators (``_plus_scalar``, ``_rpower_scalar``, ...)."""
import math

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(11)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


def _mod(a, b):
    b_safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.mod(a, b_safe))


def _c_int(s):
    """The scalar as MXNet's ``is_int`` cast gives it (toward zero)."""
    return int(math.trunc(s))


_FN = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "mod": _mod, "power": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "hypot": np.hypot, "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "lesser": np.less, "lesser_equal": np.less_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}


def _int_fn(math_name):
    if math_name == "div":
        return lambda a, b: np.trunc(np.asarray(a, np.float64) / b)
    if math_name == "power":
        def ipow(a, b):
            a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
            neg = b < 0
            y = np.power(a, np.where(neg, 0, b))
            fix = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0))
            return np.where(neg, fix, y)
        return ipow
    return _FN[math_name]


def _ref(math_name, reverse):
    def ref(x, scalar=1.0, is_int=True):
        if x.dtype.kind in "iu" and is_int:
            s = np.array(_c_int(scalar)).astype(x.dtype)[()]
            fn = _int_fn(math_name)
            y = fn(s, x) if reverse else fn(x, s)
            return np.asarray(y).astype(x.dtype)
        out_dtype = x.dtype if x.dtype.kind == "f" else np.float64
        xf = x.astype(np.float64)
        fn = _FN[math_name]
        y = fn(scalar, xf) if reverse else fn(xf, scalar)
        return np.asarray(y).astype(out_dtype)
    return ref


# name: (math, reverse, float data, scalars)
_SPECS = {
    "_plus_scalar": ("add", False, lambda: _u(-2, 2, 3, 4), (2.5, -1.0)),
    "_minus_scalar": ("sub", False, lambda: _u(-2, 2, 3, 4), (2.5,)),
    "_rminus_scalar": ("sub", True, lambda: _u(-2, 2, 3, 4), (2.5,)),
    "_mul_scalar": ("mul", False, lambda: _u(-2, 2, 3, 4), (2.5, -3.0)),
    "_div_scalar": ("div", False, lambda: _u(-2, 2, 3, 4), (2.5, -4.0)),
    "_rdiv_scalar": ("div", True, lambda: _u(0.5, 2, 3, 4) * np.sign(_u(-1, 1, 3, 4)), (2.5,)),
    "_mod_scalar": ("mod", False, lambda: (np.arange(12).reshape(3, 4) - 6 + 0.4) * 0.5,
                    (1.5, -2.0)),
    "_rmod_scalar": ("mod", True, lambda: _u(1.1, 1.4, 3, 4) * np.sign(_u(-1, 1, 3, 4)),
                     (7.5,)),
    "_power_scalar": ("power", False, lambda: _u(0.5, 2, 3, 4), (2.0, 0.5, -1.5)),
    "_rpower_scalar": ("power", True, lambda: _u(-2, 2, 3, 4), (2.5, 0.5)),
    "_maximum_scalar": ("maximum", False, lambda: _u(-2, 2, 3, 4), (0.25,)),
    "_minimum_scalar": ("minimum", False, lambda: _u(-2, 2, 3, 4), (0.25,)),
    "_hypot_scalar": ("hypot", False, lambda: _u(-2, 2, 3, 4), (1.5,)),
    "_equal_scalar": ("equal", False, lambda: np.array([[1.0, 2.0, 2.5], [0.5, 2.0, -1.0]]),
                      (2.0,)),
    "_not_equal_scalar": ("not_equal", False,
                          lambda: np.array([[1.0, 2.0, 2.5], [0.5, 2.0, -1.0]]), (2.0,)),
    "_greater_scalar": ("greater", False, lambda: _u(-2, 2, 3, 4), (0.25,)),
    "_greater_equal_scalar": ("greater_equal", False, lambda: _u(-2, 2, 3, 4), (0.25,)),
    "_lesser_scalar": ("lesser", False, lambda: _u(-2, 2, 3, 4), (0.25,)),
    "_lesser_equal_scalar": ("lesser_equal", False, lambda: _u(-2, 2, 3, 4), (0.25,)),
    "_logical_and_scalar": ("logical_and", False,
                            lambda: np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]]), (0.5, 0.0)),
    "_logical_or_scalar": ("logical_or", False,
                           lambda: np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]]), (0.5, 0.0)),
    "_logical_xor_scalar": ("logical_xor", False,
                            lambda: np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]]), (0.5, 0.0)),
}

_INT_DATA = np.array([[-7, 7, -3, 5], [2, -1, 1, 6]], dtype=np.int32)
_INT_SCALARS = {"div": 2.5, "mod": -2.5, "power": -1.0, "maximum": 2.5, "minimum": -1.5,
                "hypot": 2.5}

SAMPLES = {}
for _name, (_math, _rev, _data, _scalars) in _SPECS.items():
    _ref_fn = _ref(_math, _rev)
    _samples = [Sample([_data()], dict(scalar=s), ref=_ref_fn, name=f"scalar={s}")
                for s in _scalars]
    _isc = _INT_SCALARS.get(_math, 2.5)
    _samples.append(Sample([_INT_DATA.copy()], dict(scalar=_isc), ref=_ref_fn,
                           name="int32_is_int"))
    _samples.append(Sample([_INT_DATA.copy()], dict(scalar=_isc, is_int=False), ref=_ref_fn,
                           name="int32_float64"))
    _samples.append(Sample([_data().astype(np.float32)], dict(scalar=_scalars[0]),
                           ref=_ref_fn, rtol=1e-5, atol=1e-6, grad=False, name="float32"))
    SAMPLES[_name] = _samples

# uint8 wrap-around of a negative scalar, as in MXNet (250 * -1 -> 6)
SAMPLES["_mul_scalar"].append(
    Sample([np.array([250, 7, 0], dtype=np.uint8)], dict(scalar=-1.0), ref=_ref("mul", False),
           name="uint8_wrap"))
SAMPLES["_minus_scalar"].append(
    Sample([np.array([250, 7, 0], dtype=np.uint8)], dict(scalar=10), ref=_ref("sub", False),
           name="uint8_wrap"))
