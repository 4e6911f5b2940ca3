"""Samples for the binary operators: same-shape (``elemwise_*``, ``_mod``, ...),
broadcasting (``broadcast_*``), array-scalar (``_*_scalar``), ``add_n`` and ``where``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(7)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, size=shape)


def _mod(a, b):
    b_safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.mod(a, b_safe))


def _int_div(a, b):
    return np.trunc(a / b).astype(np.result_type(a, b))


def _bool(fn):
    def ref(a, b):
        return fn(a, b).astype(np.result_type(a, b))
    return ref


# math name -> numpy reference on (lhs, rhs)
_REF = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "mod": _mod, "power": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "hypot": np.hypot,
    "equal": _bool(np.equal), "not_equal": _bool(np.not_equal),
    "greater": _bool(np.greater), "greater_equal": _bool(np.greater_equal),
    "lesser": _bool(np.less), "lesser_equal": _bool(np.less_equal),
    "logical_and": _bool(np.logical_and), "logical_or": _bool(np.logical_or),
    "logical_xor": _bool(np.logical_xor),
}

_CMP = ("equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal")
_LOGIC = ("logical_and", "logical_or", "logical_xor")


def _pair(math, lshape, rshape):
    """Inputs for ``math`` away from kinks, zeros and discontinuities."""
    if math == "power":
        return _u(0.5, 2.0, *lshape), _u(-1.5, 2.5, *rshape)
    if math == "mod":
        # keep lhs / rhs away from integers so that floor() is locally constant
        b = _u(1.0, 2.0, *rshape) * _rng.choice([-1, 1], size=rshape)
        frac = _u(0.2, 0.8, *np.broadcast_shapes(lshape, rshape))
        k = _rng.integers(-3, 3, size=frac.shape)
        a = (k + frac) * b
        if a.shape != tuple(lshape):  # lhs smaller than the broadcast shape
            a = _u(0.2, 0.8, *lshape) * 1.0
            b = np.abs(b) + 1.0  # |b| > 1 > a > 0: floor(a / b) == 0
        return a, b
    if math == "div":
        return _u(-2, 2, *lshape), _u(0.5, 2, *rshape) * _rng.choice([-1, 1], size=rshape)
    if math in _LOGIC:
        a = _rng.choice([0.0, 1.5, -2.0], size=lshape)
        b = _rng.choice([0.0, 0.7], size=rshape)
        return a, b
    a = _u(-2, 2, *lshape)
    b = _u(-2, 2, *rshape)
    if math in ("maximum", "minimum") or math in _CMP:
        bb = np.broadcast_to(b, np.broadcast_shapes(lshape, rshape))
        a = a + 0.0
        if a.shape == bb.shape:
            close = np.abs(a - bb) < 0.1
            a[close] += 0.3
        if math in ("equal", "not_equal") and a.shape == bb.shape:
            a.reshape(-1)[0] = bb.reshape(-1)[0]  # one exact tie
    return a, b


def _int_pair(math):
    a = np.array([[-7, 7, -3, 5], [2, -1, 0, 6]], dtype=np.int32)
    b = np.array([[2, -2, -2, 3], [3, 1, 4, -4]], dtype=np.int32)
    if math == "power":
        b = np.array([[2, 3, -1, 0], [-2, -3, 2, 1]], dtype=np.int32)
    return a, b


def _int_ref(math):
    if math == "div":
        return _int_div
    if math == "power":
        def ipow(a, b):
            neg = b < 0
            y = np.power(a, np.where(neg, 0, b))
            fix = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0))
            return np.where(neg, fix, y).astype(a.dtype)
        return ipow
    if math == "hypot":
        return lambda a, b: np.hypot(a, b).astype(a.dtype)
    return _REF[math]


def _array_samples(math, broadcast):
    ref = _REF[math]
    out = [Sample(list(_pair(math, (3, 4), (3, 4))), ref=ref, name="same")]
    if broadcast:
        out.append(Sample(list(_pair(math, (2, 3, 4), (3, 1))), ref=ref, name="bcast_rhs"))
        out.append(Sample(list(_pair(math, (1, 4), (3, 1))), ref=ref, name="bcast_both"))
        out.append(Sample(list(_pair(math, (2, 1, 3), (2, 4, 3))), ref=ref, name="bcast_lhs"))
    a, b = _int_pair(math)
    if broadcast and math != "power":
        b = b[:1]
    out.append(Sample([a, b], ref=_int_ref(math), name="int32"))
    out.append(Sample([x.astype(np.float32) for x in _pair(math, (2, 3), (2, 3))], ref=ref,
                      rtol=1e-5, atol=1e-6, grad=False, name="float32"))
    return out


_ELEMWISE = {
    "elemwise_add": "add", "elemwise_sub": "sub", "elemwise_mul": "mul",
    "elemwise_div": "div", "_grad_add": "add", "_mod": "mod", "_power": "power",
    "_maximum": "maximum", "_minimum": "minimum", "_hypot": "hypot",
    "_equal": "equal", "_not_equal": "not_equal", "_greater": "greater",
    "_greater_equal": "greater_equal", "_lesser": "lesser", "_lesser_equal": "lesser_equal",
    "_logical_and": "logical_and", "_logical_or": "logical_or", "_logical_xor": "logical_xor",
}

_BROADCAST = {f"broadcast_{m}": m for m in (
    "add", "sub", "mul", "div", "mod", "power", "maximum", "minimum", "hypot", "equal",
    "not_equal", "greater", "greater_equal", "lesser", "lesser_equal", "logical_and",
    "logical_or", "logical_xor")}

SAMPLES = {}
for _name, _math in _ELEMWISE.items():
    SAMPLES[_name] = _array_samples(_math, broadcast=False)
for _name, _math in _BROADCAST.items():
    SAMPLES[_name] = _array_samples(_math, broadcast=True)


# -- add_n and where ---------------------------------------------------------------------
def _where_ref(c, x, y):
    if c.shape != x.shape:
        c = c.reshape(c.shape + (1,) * (x.ndim - 1))
    return np.where(c != 0, x, y)


SAMPLES["add_n"] = [
    Sample([_u(-1, 1, 2, 3), _u(-1, 1, 2, 3), _u(-1, 1, 2, 3)],
           dict(num_args=3), ref=lambda *xs, **_: sum(xs), name="three"),
    Sample([_u(-1, 1, 4)], dict(num_args=1), ref=lambda x, **_: x.copy(), name="one"),
    Sample([_u(-1, 1, 3, 2), _u(-1, 1, 3, 2)], dict(num_args=2),
           ref=lambda *xs, **_: sum(xs), name="two"),
    Sample([np.arange(6, dtype=np.int32).reshape(2, 3)] * 2, dict(num_args=2),
           ref=lambda *xs, **_: sum(xs), name="int32"),
]
SAMPLES["where"] = [
    Sample([np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.0]]), _u(-1, 1, 2, 3), _u(-1, 1, 2, 3)],
           ref=_where_ref, grad=[1, 2], name="same_shape"),
    Sample([np.array([1.0, 0.0, 3.0]), _u(-1, 1, 3, 2, 2), _u(-1, 1, 3, 2, 2)],
           ref=_where_ref, grad=[1, 2], name="rows"),
    Sample([np.array([1, 0], dtype=np.int32), _u(-1, 1, 2, 3), _u(-1, 1, 2, 3)],
           ref=_where_ref, name="int_condition"),
    Sample([np.array([0.0, 1.0]), np.array([1, 2], dtype=np.int64),
            np.array([5, 6], dtype=np.int64)], ref=_where_ref, grad=False, name="int64"),
]
