"""Focused tests of the elementwise unary family: special functions, MXNet's
rounding and integer-dtype semantics, higher-order gradients and the dtype
rules of ``Cast``/``amp_cast``/``amp_multicast``/``clip``."""
import math

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError
from gluonlite.ops import get_op, special


# -- special functions ------------------------------------------------------------------
def test_erf_matches_math():
    x = np.concatenate([np.linspace(-7, 7, 4001), [1e-300, 2.4999, 2.5, 2.5001, 27.0]])
    ref = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(special.erf(np, x), ref, rtol=1e-13, atol=1e-15)
    xc = np.linspace(-3, 9, 1201)
    refc = np.array([math.erfc(v) for v in xc])
    np.testing.assert_allclose(special.erfc(np, xc), refc, rtol=1e-11)
    assert special.erf(np, np.float32([0.5])).dtype == np.float32
    assert special.erf(np, np.array([1, 2])).dtype == np.float64
    np.testing.assert_array_equal(special.erf(np, np.array([np.inf, -np.inf])), [1, -1])
    assert np.isnan(special.erf(np, np.array([np.nan]))[0])


def test_erfinv_inverts_erf():
    y = np.linspace(-0.999999, 0.999999, 4001)
    r = special.erfinv(np, y)
    np.testing.assert_allclose([math.erf(v) for v in r], y, rtol=0, atol=1e-14)
    y = 1 - np.logspace(-15.9, -1, 200)
    r = special.erfinv(np, y)
    np.testing.assert_allclose([math.erfc(v) for v in r], 1 - y, rtol=1e-12)  # 1 - y exact
    np.testing.assert_allclose(special.erfinv(np, -y), -r, rtol=1e-15)
    out = special.erfinv(np, np.array([-1.0, 1.0, 1.5, 0.0]))
    assert out[0] == -np.inf and out[1] == np.inf and np.isnan(out[2]) and out[3] == 0


def test_gammaln_and_gamma_match_math():
    x = np.concatenate([np.linspace(0.01, 60, 3000), np.linspace(-20.3, 0.4, 700) + 1e-3])
    np.testing.assert_allclose(special.gammaln(np, x), [math.lgamma(v) for v in x],
                               rtol=1e-12, atol=1e-12)
    xs = x[x < 170]
    np.testing.assert_allclose(special.gamma(np, xs), [math.gamma(v) for v in xs], rtol=1e-11)
    np.testing.assert_array_equal(special.gamma(np, np.array([1.0, 5.0, 7.0])), [1, 24, 720])
    assert np.all(np.isinf(special.gammaln(np, np.array([0.0, -1.0, -2.0]))))
    g = special.gamma(np, np.array([-1.0, -2.0, 0.0]))
    assert np.isnan(g[0]) and np.isnan(g[1]) and g[2] == np.inf


def test_digamma():
    x = np.concatenate([np.linspace(0.05, 30, 600), np.linspace(-5.3, 0.3, 300) + 1.3e-3])
    h = 1e-4
    lg = np.vectorize(math.lgamma)
    fd = (8 * (lg(x + h) - lg(x - h)) - (lg(x + 2 * h) - lg(x - 2 * h))) / (12 * h)
    far = np.abs(x - np.round(x)) > 0.05  # finite differences are poor next to the poles
    np.testing.assert_allclose(special.digamma(np, x)[far], fd[far], rtol=1e-8, atol=1e-8)
    euler = 0.5772156649015329
    np.testing.assert_allclose(special.digamma(np, np.array([1.0, 0.5])),
                               [-euler, -euler - 2 * math.log(2)], rtol=1e-14)
    # the poles give +inf, as MXNet 1.9.1 does: nd.gammaln's gradient at 0, -1, -2 is
    # inf, and nd.gamma's at 0 is inf (at -1 gamma itself is nan)
    assert np.all(special.digamma(np, np.array([0.0, -1.0, -3.0])) == np.inf)
    x = mx.nd.array([0.0, -1.0, 0.5])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.gammaln(x)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [np.inf, np.inf, -1.9635108], rtol=1e-6)


# -- MXNet semantics (values from MXNet 1.9.1) ---------------------------------------------
_HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.7, 0.7, 3.5, -3.5]


@pytest.mark.parametrize("op,expected", [
    ("round", [-3, -2, -1, 1, 2, 3, -1, 1, 4, -4]),    # halves away from zero
    ("rint", [-3, -2, -1, 0, 1, 2, -1, 1, 3, -4]),     # halves toward -inf (not to even)
    ("fix", [-2, -1, -0, 0, 1, 2, -0, 0, 3, -3]),      # toward zero
    ("trunc", [-2, -1, -0, 0, 1, 2, -0, 0, 3, -3]),
    ("ceil", [-2, -1, -0, 1, 2, 3, -0, 1, 4, -3]),
    ("floor", [-3, -2, -1, 0, 1, 2, -1, 0, 3, -4]),
])
def test_rounding_semantics(op, expected):
    y = getattr(nd, op)(nd.array(_HALVES)).asnumpy()
    np.testing.assert_array_equal(y, expected)
    assert y.dtype == np.float32


def test_round_no_double_rounding():
    x = nd.array([0.49999999999999994, -0.49999999999999994, 4.5, -4.5], dtype="float64")
    np.testing.assert_array_equal(nd.round(x).asnumpy(), [0, -0, 5, -5])


@pytest.mark.parametrize("op,expected", [
    ("abs", [3, 0, 4]), ("sign", [-1, 0, 1]), ("round", [-3, 0, 4]), ("negative", [3, 0, -4]),
    ("square", [9, 0, 16]), ("relu", [0, 0, 4]), ("logical_not", [0, 1, 0]),
    ("reciprocal", [0, -2147483648, 0]), ("sqrt", [-2147483648, 0, 2]), ("exp", [0, 1, 54]),
    ("sin", [0, 0, 0]), ("degrees", [-171, 0, 229]), ("radians", [0, 0, 0]),
    ("cbrt", [-1, 0, 1]),
])
def test_int32_inputs_keep_dtype(op, expected):
    y = getattr(nd, op)(nd.array([-3, 0, 4], dtype="int32"))
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.asnumpy(), expected)


def test_uint8_semantics():
    x = nd.array([0, 3, 250], dtype="uint8")
    np.testing.assert_array_equal(nd.negative(x).asnumpy(), [0, 253, 6])
    np.testing.assert_array_equal(nd.sign(x).asnumpy(), [0, 1, 1])
    np.testing.assert_array_equal(nd.logical_not(x).asnumpy(), [1, 0, 0])
    assert nd.abs(x).dtype == np.uint8


def test_logical_not_float_and_zero_grad():
    x = nd.array([0.0, 1.5, -2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.logical_not(x)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), [1, 0, 0])
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 0, 0])


def test_degrees_radians_use_float32_constants():
    one = nd.array([1.0], dtype="float64")
    assert nd.degrees(one).asnumpy()[0] == float(np.float32(180) / np.float32(np.pi))
    assert nd.radians(one).asnumpy()[0] == float(np.float32(np.pi / 180))


def test_special_ops_edge_values():
    y = nd.erfinv(nd.array([-1, 1, 1.5, 0.3], dtype="float64")).asnumpy()
    assert y[0] == -np.inf and y[1] == np.inf and np.isnan(y[2])
    g = nd.gamma(nd.array([-0.5, -1, 0], dtype="float64")).asnumpy()
    np.testing.assert_allclose(g[0], -3.5449077018110318)
    assert np.isnan(g[1]) and g[2] == np.inf
    gl = nd.gammaln(nd.array([-0.5, -1, 0], dtype="float64")).asnumpy()
    np.testing.assert_allclose(gl[0], 1.2655121234846454)
    assert gl[1] == np.inf and gl[2] == np.inf


def test_rounding_gradients_are_zero():
    for op in ("round", "rint", "fix", "trunc", "ceil", "floor", "sign"):
        x = nd.array([0.3, 1.7, -0.4])
        x.attach_grad()
        with autograd.record():
            y = getattr(nd, op)(x)
        y.backward()
        np.testing.assert_array_equal(x.grad.asnumpy(), 0, err_msg=op)


def test_relu_out_buffer_and_no_alias():
    x = nd.array([-1.0, 2.0, 0.5])
    out = nd.zeros((3,))
    r = nd.relu(x, out=out)
    np.testing.assert_array_equal(out.asnumpy(), [0, 2, 0.5])
    assert r is out
    y = nd.relu(x)
    y[:] = 7
    np.testing.assert_array_equal(x.asnumpy(), [-1, 2, 0.5])
    assert nd.relu(nd.array([-1, 2], dtype="float16")).dtype == np.float16


# -- higher-order gradients -------------------------------------------------------------------
_SECOND = [
    ("sin", 0.7), ("cos", 0.7), ("tan", 0.3), ("exp", 0.4), ("expm1", 0.4), ("log", 1.3),
    ("log10", 1.3), ("log2", 1.3), ("log1p", 0.6), ("sqrt", 1.7), ("rsqrt", 1.7),
    ("cbrt", 1.7), ("rcbrt", 1.7), ("reciprocal", 1.4), ("square", 0.8), ("tanh", 0.6),
    ("sigmoid", 0.6), ("softsign", 0.6), ("arcsin", 0.4), ("arccos", 0.4), ("arctan", 0.4),
    ("sinh", 0.5), ("cosh", 0.5), ("arcsinh", 0.5), ("arccosh", 1.6), ("arctanh", 0.4),
    ("erf", 0.6), ("erfinv", 0.4), ("abs", -0.8), ("negative", 0.5), ("degrees", 0.5),
    ("radians", 0.5), ("relu", 0.5), ("round", 0.3),
]


def _first(op, v):
    x = nd.array([v], dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = getattr(nd._internal if op.startswith("_") else nd, op)(x)
    y.backward()
    return float(x.grad.asnumpy()[0])


@pytest.mark.parametrize("op,v", _SECOND, ids=[o for o, _ in _SECOND])
def test_second_derivative(op, v):
    fn = getattr(nd._internal if op.startswith("_") else nd, op)
    x = nd.array([v], dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = fn(x)
        dy = autograd.grad(y, x, create_graph=True)[0]
    dy.backward()
    h = 1e-5
    expected = (_first(op, v + h) - _first(op, v - h)) / (2 * h)
    np.testing.assert_allclose(dy.asnumpy()[0], _first(op, v), rtol=1e-10)
    np.testing.assert_allclose(x.grad.asnumpy()[0], expected, rtol=1e-5, atol=1e-7)


def test_second_derivative_of_misc_ops():
    x = nd.array([-2.0, 0.3, 0.5, 2.0], dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = (nd.smooth_l1(x, scalar=1.0) + nd.clip(x, -1.0, 1.0) * 3
             + nd.identity(x) * x + nd.BlockGrad(x) * x)
        dy = autograd.grad(y, x, create_graph=True)[0]
    dy.backward()
    v = x.asnumpy()
    np.testing.assert_allclose(dy.asnumpy(), np.array([-1, 0.3 + 3, 0.5 + 3, 1]) + 3 * v)
    np.testing.assert_allclose(x.grad.asnumpy(), [0 + 2, 1 + 2, 1 + 2, 0 + 2])  # BlockGrad: 0


# -- Cast / amp / clip / smooth_l1 rules ----------------------------------------------------------
def test_cast_rules():
    x = nd.array([-1.7, 2.9, 300.5, -0.5])
    np.testing.assert_array_equal(nd.Cast(x, dtype="int32").asnumpy(), [-1, 2, 300, 0])
    np.testing.assert_array_equal(nd.Cast(x, dtype="uint8").asnumpy(), [255, 2, 44, 0])
    np.testing.assert_array_equal(nd.cast(x, dtype="int8").asnumpy(), [-1, 2, 44, 0])
    a = nd.array([1.5, 2.5])
    a.attach_grad()
    with autograd.record():
        y = nd.Cast(a, dtype="float64")
    y.backward(nd.array([3, 4], dtype="float64"))
    assert y.dtype == np.float64 and a.grad.dtype == np.float32
    np.testing.assert_array_equal(a.grad.asnumpy(), [3, 4])
    op = get_op("Cast")
    assert op.infer_type(op.parse_attrs({"dtype": "float16"}), [np.dtype("float32")])[1] == \
        [np.dtype("float16")]
    with pytest.raises(MXNetError, match="Cast.*dtype"):
        nd.Cast(x)


def test_amp_cast_only_casts_float16_float32():
    for src, dst, want in [("float32", "float16", "float16"), ("float16", "float32", "float32"),
                           ("float16", "int32", "int32"), ("float64", "float16", "float64"),
                           ("int32", "float16", "int32"), ("uint8", "float32", "uint8")]:
        y = nd.amp_cast(nd.array([1, 2], dtype=src), dtype=dst)
        assert y.dtype == np.dtype(want), (src, dst)
        op = get_op("amp_cast")
        assert op.infer_type(op.parse_attrs({"dtype": dst}), [np.dtype(src)])[1] == \
            [np.dtype(want)]


@pytest.mark.parametrize("dtypes,narrow,expected", [
    (("float16", "float32"), False, ("float32", "float32")),
    (("float16", "float32"), True, ("float16", "float16")),
    (("float16", "float64"), False, ("float16", "float64")),
    (("float64", "float16"), True, ("float64", "float16")),
    (("float32", "float64"), True, ("float32", "float64")),
    (("float32", "int32"), False, ("float32", "int32")),
    (("float16", "float32", "float64"), False, ("float32", "float32", "float64")),
    (("float32", "float16", "float64"), True, ("float16", "float16", "float64")),
])
def test_amp_multicast_dtypes(dtypes, narrow, expected):
    arrs = [nd.array([1.5, 2.0], dtype=d) for d in dtypes]
    outs = nd.amp_multicast(*arrs, num_outputs=len(arrs), cast_narrow=narrow)
    assert [np.dtype(o.dtype).name for o in outs] == list(expected)
    op = get_op("amp_multicast")
    attrs = op.parse_attrs({"num_outputs": len(arrs), "cast_narrow": narrow})
    assert [t.name for t in op.infer_type(attrs, [np.dtype(d) for d in dtypes])[1]] == \
        list(expected)


def test_amp_multicast_gradient_in_input_dtype():
    a = nd.array([1.5, 2.0], dtype="float16")
    b = nd.array([1.0, 2.0], dtype="float32")
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        ya, yb = nd.amp_multicast(a, b, num_outputs=2)
    autograd.backward([ya, yb], [nd.array([2, 3]), nd.array([4, 5])])
    assert a.grad.dtype == np.float16
    np.testing.assert_array_equal(a.grad.asnumpy(), [2, 3])
    np.testing.assert_array_equal(b.grad.asnumpy(), [4, 5])


def test_clip_rules():
    np.testing.assert_array_equal(
        nd.clip(nd.array([-5, 0, 3, 10], dtype="int32"), -1.5, 2.7).asnumpy(), [-1, 0, 2, 2])
    # a_min > a_max: MXNet tests the upper bound first
    np.testing.assert_array_equal(nd.clip(nd.array([0.0, 5, 1.5]), 2, 1).asnumpy(), [2, 1, 1])
    x = nd.array([-2, -1, 0, 0.5, 1, 2, 3], dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = nd.clip(x, -1, 1)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 1, 1, 1, 1, 0, 0])
    with pytest.raises(MXNetError, match="clip.*a_min"):
        nd.clip(x)


def test_smooth_l1_boundary():
    x = nd.array([-1.0, -0.25, 0.25, 1.0], dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = nd.smooth_l1(x, scalar=2.0)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), [0.875, 0.125, 0.125, 0.875])
    np.testing.assert_array_equal(x.grad.asnumpy(), [-1, -1, 1, 1])  # linear branch at 1/s^2
    np.testing.assert_array_equal(
        nd.smooth_l1(nd.array([-3, 0, 2], dtype="int32")).asnumpy(), [2, 0, 1])


def test_blockgrad_and_like_ops():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.BlockGrad(x) * 2 + nd.stop_gradient(x) + nd.zeros_like(x) + nd.ones_like(x) * x
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [1, 1])
    assert nd.zeros_like(nd.array([1, 2], dtype="int32")).dtype == np.int32
    np.testing.assert_array_equal(nd.identity(x).asnumpy(), [1, 2])


# -- GPU ---------------------------------------------------------------------------------------
@pytest.mark.gpu
def test_special_functions_on_gpu():
    cp = pytest.importorskip("cupy")
    x = np.linspace(-3, 3, 101)
    for fn, data in [(special.erf, x), (special.erfinv, x / 3.1),
                     (special.gammaln, np.abs(x) + 0.1), (special.gamma, x + 3.05),
                     (special.digamma, np.abs(x) + 0.1)]:
        got = cp.asnumpy(fn(cp, cp.asarray(data)))
        np.testing.assert_allclose(got, fn(np, data), rtol=1e-10, atol=1e-12)
    y = nd.erf(nd.array(x, ctx=mx.gpu(0), dtype="float64"))
    np.testing.assert_allclose(y.asnumpy(), special.erf(np, x), rtol=1e-12)
