"""Binary, scalar and broadcast operators: MXNet's names, dtype rules, errors, shape
inference with unknown dimensions, gradients and higher-order gradients."""
import math

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError
from gluonlite.ops.registry import find_op, get_op

# canonical name -> aliases, as MXNet 1.9.1 lists them (``_npi_*`` left out)
MXNET_NAMES = {
    "elemwise_add": ["_Plus", "_add", "_plus", "_sparse_elemwise_add"],
    "elemwise_sub": ["_Minus", "_minus", "_sparse_elemwise_sub", "_sub"],
    "elemwise_mul": ["_Mul", "_mul", "_sparse_elemwise_mul"],
    "elemwise_div": ["_Div", "_div", "_sparse_elemwise_div"],
    "_mod": ["_Mod"], "_power": ["_Power"], "_maximum": ["_Maximum"],
    "_minimum": ["_Minimum"], "_hypot": ["_Hypot"], "_equal": ["_Equal"],
    "_not_equal": ["_Not_Equal"], "_greater": ["_Greater"],
    "_greater_equal": ["_Greater_Equal"], "_lesser": ["_Lesser"],
    "_lesser_equal": ["_Lesser_Equal"], "_logical_and": ["_Logical_And"],
    "_logical_or": ["_Logical_Or"], "_logical_xor": ["_Logical_Xor"], "_grad_add": [],
    "_plus_scalar": ["_PlusScalar"], "_minus_scalar": ["_MinusScalar"],
    "_rminus_scalar": ["_RMinusScalar"], "_mul_scalar": ["_MulScalar"],
    "_div_scalar": ["_DivScalar"], "_rdiv_scalar": ["_RDivScalar"],
    "_mod_scalar": ["_ModScalar"], "_rmod_scalar": ["_RModScalar"],
    "_power_scalar": ["_PowerScalar"], "_rpower_scalar": ["_RPowerScalar"],
    "_maximum_scalar": ["_MaximumScalar"], "_minimum_scalar": ["_MinimumScalar"],
    "_hypot_scalar": ["_HypotScalar"], "_equal_scalar": ["_EqualScalar"],
    "_not_equal_scalar": ["_NotEqualScalar"], "_greater_scalar": ["_GreaterScalar"],
    "_greater_equal_scalar": ["_GreaterEqualScalar"], "_lesser_scalar": ["_LesserScalar"],
    "_lesser_equal_scalar": ["_LesserEqualScalar"],
    "_logical_and_scalar": ["_LogicalAndScalar"], "_logical_or_scalar": ["_LogicalOrScalar"],
    "_logical_xor_scalar": ["_LogicalXorScalar"],
    "broadcast_add": ["_sparse_broadcast_add", "_sparse_broadcast_plus", "broadcast_plus"],
    "broadcast_sub": ["_sparse_broadcast_minus", "_sparse_broadcast_sub", "broadcast_minus"],
    "broadcast_mul": ["_sparse_broadcast_mul"], "broadcast_div": ["_sparse_broadcast_div"],
    "add_n": ["ElementWiseSum", "_sparse_ElementWiseSum", "_sparse_add_n"],
    "where": ["_sparse_where"],
}
for _m in ("mod", "power", "maximum", "minimum", "hypot", "equal", "not_equal", "greater",
           "greater_equal", "lesser", "lesser_equal", "logical_and", "logical_or",
           "logical_xor"):
    MXNET_NAMES[f"broadcast_{_m}"] = []


@pytest.mark.parametrize("name", sorted(MXNET_NAMES))
def test_names_and_aliases(name):
    op = get_op(name)
    assert op.name == name
    for alias in MXNET_NAMES[name]:
        assert find_op(alias) is op, alias
    if name != "add_n":
        assert op.cuda and op.cuda_grad and len(op.cuda_grad) == len(op.input_names(
            op.parse_attrs({})))


def test_scalar_attributes_and_json_strings():
    op = get_op("_mul_scalar")
    attrs = op.parse_attrs({"scalar": "2.5"})
    assert attrs.scalar == 2.5 and attrs.is_int is True
    assert op.parse_attrs({}).scalar == 1.0
    assert attrs.to_strings() == {"scalar": "2.5"}


# -- dtype rules -------------------------------------------------------------------------
def _i32(*v):
    return nd.array(np.array(v, dtype=np.int32), dtype="int32")


@pytest.mark.parametrize("expr,expected", [
    (lambda a: a * 2.5, [2, 4, 6, -6]),
    (lambda a: a / 2, [0, 1, 1, -1]),
    (lambda a: 7 / a, [7, 3, 2, -2]),
    (lambda a: a ** 0.5, [1, 1, 1, 1]),
    (lambda a: 2.5 ** a, [2, 4, 8, 0]),
    (lambda a: a % 2.5, [1, 0, 1, 1]),
    (lambda a: 7.5 % a, [0, 1, 1, -2]),
    (lambda a: nd.maximum(a, 2.5), [2, 2, 3, 2]),
    (lambda a: a > 1.5, [0, 1, 1, 0]),
    (lambda a: a * -1.5, [-1, -2, -3, 3]),
])
def test_int_array_scalar_takes_array_dtype(expr, expected):
    y = expr(_i32(1, 2, 3, -3))
    assert y.dtype == np.int32
    assert y.asnumpy().tolist() == expected


def test_int_division_truncates_and_mod_follows_divisor():
    a = _i32(-7, 7, -7, 7)
    b = _i32(2, -2, -2, 2)
    assert (a / b).asnumpy().tolist() == [-3, -3, 3, 3]
    assert (a % b).asnumpy().tolist() == [1, -1, -1, 1]
    assert (a % 0).asnumpy().tolist() == [0, 0, 0, 0]
    f = nd.array([1.5, -2.5, 3, 0])
    np.testing.assert_allclose((f % 0).asnumpy(), [0, 0, 0, 0])
    np.testing.assert_allclose((-7.5 % f).asnumpy(), [0, 0, 1.5, 0])


def test_uint8_scalar_wraps():
    u = nd.array(np.array([250, 7], dtype=np.uint8), dtype="uint8")
    assert (u * -1).asnumpy().tolist() == [6, 249]
    assert (u + 10).asnumpy().tolist() == [4, 17]
    assert (u - 10).asnumpy().tolist() == [240, 253]


def test_is_int_false_gives_float64():
    y = nd._internal._mul_scalar(_i32(1, 2), scalar=2.5, is_int=False)
    assert y.dtype == np.float64 and y.asnumpy().tolist() == [2.5, 5.0]
    op = get_op("_greater_scalar")
    assert op.infer_type(op.parse_attrs({"is_int": False}), [np.dtype("int32")])[1] == \
        [np.dtype("float64")]
    assert op.infer_type(op.parse_attrs({"is_int": False}), [np.dtype("float16")])[1] == \
        [np.dtype("float16")]


def test_comparisons_keep_input_dtype():
    for dt in ("float16", "float32", "int64", "uint8"):
        x = nd.array([1, 2, 3], dtype=dt)
        assert (x > 1.5).dtype == np.dtype(dt)
        assert nd.broadcast_equal(x, x).dtype == np.dtype(dt)


# -- errors ------------------------------------------------------------------------------
def test_dtype_mismatch_names_operator():
    with pytest.raises(MXNetError, match="broadcast_add.*int32"):
        _i32(1, 2) + nd.array([1.0, 2.0])
    with pytest.raises(MXNetError, match="elemwise_mul"):
        nd.elemwise_mul(_i32(1, 2), nd.array([1.0, 2.0]))
    with pytest.raises(MXNetError, match="add_n"):
        nd.add_n(nd.ones((2,)), nd.ones((2,), dtype="int32"))


def test_shape_errors_name_operator_and_shapes():
    with pytest.raises(MXNetError, match=r"broadcast_mul.*\(2, 3\).*\(2,\)"):
        nd.broadcast_mul(nd.ones((2, 3)), nd.ones((2,)))
    with pytest.raises(MXNetError, match=r"_maximum.*\(2, 3\).*\(3,\)"):
        nd._internal._maximum(nd.ones((2, 3)), nd.ones((3,)))
    with pytest.raises(MXNetError, match=r"add_n.*\(2,\).*\(3,\)"):
        nd.add_n(nd.ones((2,)), nd.ones((3,)))
    with pytest.raises(MXNetError, match="where"):
        nd.where(nd.array([1, 0, 1]), nd.ones((2, 2)), nd.ones((2, 2)))
    with pytest.raises(MXNetError, match="where"):
        nd.where(nd.array([1, 0]), nd.ones((2,)), nd.ones((2, 2)))


def test_broadcasting_follows_numpy_rule():
    assert (nd.ones((2, 3)) + nd.ones((3,))).shape == (2, 3)
    assert nd.broadcast_add(nd.ones((2, 1)), nd.ones((1, 3))).shape == (2, 3)
    assert nd.broadcast_add(nd.ones((2, 3)), nd.ones((1,))).shape == (2, 3)


# -- shape inference ---------------------------------------------------------------------
def test_broadcast_infer_shape_with_unknown_dims():
    op = get_op("broadcast_add")
    attrs = op.parse_attrs({})
    assert op.infer_shape(attrs, [(2, 0), (1, 3)])[1] == [(2, 3)]
    assert op.infer_shape(attrs, [(2, 0), (1, 1)])[1] == [(2, 0)]
    assert op.infer_shape(attrs, [(0, 3), (4, 1)])[1] == [(4, 3)]
    assert op.infer_shape(attrs, [(5, 2, 3), (3,)])[1] == [(5, 2, 3)]
    assert op.infer_shape(attrs, [(2, 3), None])[1] == [None]
    with pytest.raises(MXNetError, match=r"broadcast_add.*\(2, 3\).*\(4, 3\)"):
        op.infer_shape(attrs, [(2, 3), (4, 3)])


def test_elemwise_and_where_infer_shape_fill_unknowns():
    op = get_op("elemwise_add")
    assert op.infer_shape(op.parse_attrs({}), [(2, 0), (0, 3)]) == ([(2, 3)] * 2, [(2, 3)])
    assert op.infer_shape(op.parse_attrs({}), [None, (4,)]) == ([(4,)] * 2, [(4,)])
    w = get_op("where")
    assert w.infer_shape(w.parse_attrs({}), [(3,), (3, 0), (0, 2)]) == \
        ([(3,), (3, 2), (3, 2)], [(3, 2)])
    ins, outs = w.infer_shape(w.parse_attrs({}), [(2, 2), None, None])
    assert outs == [(2, 2)] and ins[1] == (2, 2)
    assert w.infer_type(w.parse_attrs({}), [np.dtype("int32"), np.dtype("float32"), None])[1] \
        == [np.dtype("float32")]


# -- gradients ---------------------------------------------------------------------------
def _grads(fn, *values):
    xs = [nd.array(v) for v in values]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = fn(*xs)
    y.backward()
    return [x.grad.asnumpy().tolist() for x in xs]


def test_maximum_minimum_ties_go_to_lhs():
    a, b = [1.0, 2.0, 3.0], [1.0, 3.0, 2.0]
    assert _grads(nd.broadcast_maximum, a, b) == [[1, 0, 1], [0, 1, 0]]
    assert _grads(nd.broadcast_minimum, a, b) == [[1, 1, 0], [0, 0, 1]]
    assert _grads(lambda x: nd.maximum(x, 2.0), a) == [[0, 1, 1]]
    assert _grads(lambda x: nd.minimum(x, 2.0), a) == [[1, 1, 0]]


def test_mod_and_where_gradients():
    assert _grads(nd.broadcast_mod, [3.5, -2.5, 7.0], [2.0, 2.0, -3.0]) == \
        [[1, 1, 1], [-1, 2, 3]]
    assert _grads(lambda x: 7.5 % x, [2.0, -2.0, 3.0]) == [[-3, 4, -2]]
    g = _grads(nd.where, [1.0, 0.0, 1.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    assert g == [[0, 0, 0], [1, 0, 1], [0, 1, 0]]


def test_comparison_gradient_is_written_as_zero():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    x.grad[:] = 5
    with autograd.record():
        y = x > 1.5
    y.backward()
    assert x.grad.asnumpy().tolist() == [0, 0]


def test_broadcast_gradient_sums_over_broadcast_axes():
    a = nd.array(np.ones((2, 3)) * 2)
    b = nd.array(np.arange(3.0))
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        y = a * b
    y.backward()
    assert a.grad.asnumpy().tolist() == [[0, 1, 2], [0, 1, 2]]
    assert b.grad.asnumpy().tolist() == [4, 4, 4]


def test_out_and_inplace_operators_write_into_the_array():
    a = nd.array([1.0, 2.0])
    c = nd.zeros((2,))
    r = nd.add(a, a, out=c)
    assert r is c and c.asnumpy().tolist() == [2, 4]
    before = a
    a += 1
    a *= nd.array([2.0, 3.0])
    assert a is before and a.asnumpy().tolist() == [4, 9]


# -- higher-order gradients --------------------------------------------------------------
def _second(fn, values):
    x = nd.array(values)
    x.attach_grad()
    with autograd.record():
        dy = autograd.grad(fn(x), x, create_graph=True)[0]
    dy.backward()
    return dy.asnumpy(), x.grad.asnumpy()


@pytest.mark.parametrize("fn,d1,d2", [
    (lambda x: x * x * x, lambda v: 3 * v * v, lambda v: 6 * v),
    (lambda x: x ** 3, lambda v: 3 * v * v, lambda v: 6 * v),
    (lambda x: 1 / x, lambda v: -1 / v ** 2, lambda v: 2 / v ** 3),
    (lambda x: x / (x + 1), lambda v: 1 / (v + 1) ** 2, lambda v: -2 / (v + 1) ** 3),
    (lambda x: 2 ** x, lambda v: math.log(2) * 2 ** v, lambda v: math.log(2) ** 2 * 2 ** v),
    (lambda x: (3 - x) * (x - 1) + x, lambda v: 5 - 2 * v, lambda v: -2 + 0 * v),
    (lambda x: nd.maximum(x, 1.5) * x, lambda v: np.where(v >= 1.5, 2 * v, 1.5),
     lambda v: np.where(v >= 1.5, 2.0, 0.0)),
    (lambda x: x ** x, lambda v: v ** v * (np.log(v) + 1),
     lambda v: v ** v * (np.log(v) + 1) ** 2 + v ** (v - 1)),
    (lambda x: nd.hypot(x, 3.0) if hasattr(nd, "hypot") else nd.broadcast_hypot(
        x, nd.array([3.0, 3.0, 3.0])), lambda v: v / np.hypot(v, 3),
     lambda v: 9 / np.hypot(v, 3) ** 3),
])
def test_higher_order_gradients(fn, d1, d2):
    v = np.array([0.5, 1.0, 2.0])
    dy, d2y = _second(fn, v)
    np.testing.assert_allclose(dy, d1(v), rtol=1e-5)
    np.testing.assert_allclose(d2y, d2(v), rtol=1e-5)


def test_higher_order_through_broadcast_reduction():
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = nd.broadcast_mul(nd.ones((2, 3)), x * x)
        dy = autograd.grad(y, x, create_graph=True)[0]
    dy.backward()
    np.testing.assert_allclose(dy.asnumpy(), [4, 8, 12])
    np.testing.assert_allclose(x.grad.asnumpy(), [4, 4, 4])


def test_rpower_scalar_gradient_keeps_float32():
    # xp.log(python float) is a NumPy float64 scalar, which used to promote the gradient
    x = mx.nd.array([0.5, 1.0])
    x.attach_grad()
    with mx.autograd.record():
        y = 2.0 ** x
    y.backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad.asnumpy(), np.log(2) * 2.0 ** np.array([0.5, 1.0]),
                               rtol=1e-6)
