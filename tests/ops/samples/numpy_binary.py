"""Samples for ``numpy_binary.py``: the ``_npi_*`` binary operators of ``mx.np`` and their
``_scalar``/``_rscalar`` forms.

References are NumPy's functions under MXNet 1.9's dtype rules: comparisons give
``bool``; integer ``true_divide`` gives ``float32``; an int array meets a float array in
the float dtype; a scalar takes the array's dtype as a C cast gives it.  Gradients are
checked on float64 inputs, with broadcasting on both sides.
"""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(11)


def _x(*shape, lo=-2.0, hi=2.0, dtype=np.float64):
    return _rng.uniform(lo, hi, shape).astype(dtype)


def _pos(*shape, dtype=np.float64):
    return _x(*shape, lo=0.5, hi=2.0, dtype=dtype)


def _int(*shape, lo=1, hi=9, dtype=np.int32):
    return _rng.integers(lo, hi, shape).astype(dtype)


def _result_dtype(a, b):
    if a == b:
        return a
    if (a.kind == "f") != (b.kind == "f"):
        return a if a.kind == "f" else b
    return np.promote_types(a, b)


_BOOL = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
         "logical_and", "logical_or", "logical_xor"}
_FLOAT_ONLY_OUT = {"true_divide", "arctan2", "hypot", "ldexp"}


def _mod(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.mod(a, np.where(b == 0, 1, b))
    return np.where(b == 0, 0, r)


_NP = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "true_divide": np.true_divide, "mod": _mod, "power": np.power, "maximum": np.maximum,
    "minimum": np.minimum, "hypot": np.hypot, "arctan2": np.arctan2,
    "copysign": np.copysign, "fmod": np.fmod, "lcm": np.lcm, "gcd": np.gcd,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "ldexp": lambda a, b: a * np.exp2(b),
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "less": np.less, "less_equal": np.less_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}


def _array_ref(name):
    def ref(a, b):
        dt = _result_dtype(a.dtype, b.dtype)
        if name in _FLOAT_ONLY_OUT and dt.kind != "f":
            dt = np.dtype(np.float32)
        y = _NP[name](a.astype(dt), b.astype(dt))
        return y if name in _BOOL else y.astype(dt)
    return ref


def _c_scalar(value, dtype):
    if dtype.kind == "f":
        return dtype.type(value)
    return np.array(int(value), dtype=np.int64).astype(dtype)[()]


def _scalar_ref(name, reverse):
    def ref(x, scalar, is_int=True):
        dt = x.dtype
        if dt == np.bool_:
            dt = np.dtype(np.int64) if is_int else np.dtype(np.float32)
        if name in _FLOAT_ONLY_OUT and dt.kind != "f":
            dt = np.dtype(np.float32)
        s = _c_scalar(scalar, dt)
        xv = x.astype(dt)
        y = _NP[name](s, xv) if reverse else _NP[name](xv, s)
        y = np.broadcast_to(np.asarray(y), x.shape)
        return y if name in _BOOL else y.astype(dt)
    return ref


_INT_ONLY = {"lcm", "gcd", "bitwise_and", "bitwise_or", "bitwise_xor"}
_NO_GRAD = _BOOL | _INT_ONLY
# input ranges where the function and its finite differences are smooth
_DOMAIN = {"power": _pos, "true_divide": _pos, "mod": _pos, "fmod": _pos, "hypot": _pos,
           "arctan2": _pos, "copysign": _pos}


def _array_samples(name):
    ref = _array_ref(name)
    if name in _INT_ONLY:
        return [Sample([_int(2, 3), _int(2, 3)], ref=ref),
                Sample([_int(2, 3, 4, dtype=np.int64), _int(3, 1, dtype=np.int64)], ref=ref),
                Sample([_int(4, lo=100, hi=250, dtype=np.uint8),
                        _int(4, lo=100, hi=250, dtype=np.uint8)], ref=ref)]
    gen = _DOMAIN.get(name, _x)
    grad = name not in _NO_GRAD and name != "copysign"
    return [
        Sample([gen(2, 3), gen(2, 3)], ref=ref, grad=grad),
        Sample([gen(2, 3, 4), gen(3, 1)], ref=ref, grad=grad),        # broadcast rhs
        Sample([gen(1, 4), gen(3, 2, 1)], ref=ref, grad=grad),        # broadcast both
        Sample([gen(2, 3, 2, 2), gen(2)], ref=ref, grad=grad),        # 4-D
        Sample([gen(3, 4, dtype=np.float32), gen(3, 4, dtype=np.float32)], ref=ref,
               rtol=1e-5, atol=1e-6, grad=False),
        Sample([_int(2, 3), gen(2, 3, dtype=np.float32)], ref=ref, rtol=1e-5, atol=1e-6,
               grad=False),                                           # int with float
        Sample([_int(2, 3), _int(2, 3, dtype=np.int64)], ref=ref, grad=False),
    ]


def _scalar_samples(name, reverse):
    ref = _scalar_ref(name, reverse)
    if name in _INT_ONLY:
        return [Sample([_int(2, 3)], dict(scalar=6.0), ref=ref),
                Sample([_int(3, 4, dtype=np.int64)], dict(scalar=3.0), ref=ref)]
    gen = _DOMAIN.get(name, _x)
    grad = name not in _NO_GRAD and name != "copysign"
    scalar = 1.5 if name not in ("power",) else 2.0
    return [
        Sample([gen(2, 3)], dict(scalar=scalar, is_int=False), ref=ref, grad=grad),
        Sample([gen(2, 3, 4)], dict(scalar=0.75, is_int=False), ref=ref, grad=grad),
        Sample([gen(3, 2, dtype=np.float32)], dict(scalar=scalar, is_int=False), ref=ref,
               rtol=1e-5, atol=1e-6, grad=False),
        Sample([_int(2, 3)], dict(scalar=2.5, is_int=False), ref=ref, grad=False),
        Sample([_int(2, 3)], dict(scalar=3.0, is_int=True), ref=ref, grad=False),
        Sample([_int(2, 2) > 4], dict(scalar=2.0, is_int=True), ref=ref, grad=False),
    ]


_NONCOMMUTATIVE = {"subtract", "true_divide", "mod", "power", "arctan2", "copysign", "fmod",
                   "ldexp"}

SAMPLES = {}
for _name in _NP:
    SAMPLES[f"_npi_{_name}"] = _array_samples(_name)
    SAMPLES[f"_npi_{_name}_scalar"] = _scalar_samples(_name, False)
    if _name in _NONCOMMUTATIVE:
        SAMPLES[f"_npi_r{_name}_scalar"] = _scalar_samples(_name, True)
