"""The expression form of elementwise math (``gluonlite/ops/expr.py``): each renderer on
its own; the operators built on it are checked by the op harness (``check_math``) and
the fusion tests."""
import math

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops.expr import (FUNCTIONS, ElemMath, const, eq, fn, graph_grad,
                                head_grad_kernel, isnan, logical_and, logical_or, ne,
                                numpy_kernel, recorded_backward, substitute, to_c,
                                variables, var, where)
from gluonlite.ops.registry import all_ops, get_op

X, Y, L, R = var("x"), var("y"), var("lhs"), var("rhs")


def test_c_rendering_parenthesizes_and_maps_functions():
    assert to_c(X * 2 + 1) == "((x * 2) + 1)"
    assert to_c(-X / 3.0) == "(-(x) / 3.0)"
    assert to_c(where(X > 0, X, -0.5)) == "((x > 0) ? x : (-0.5))"
    assert to_c(fn.asin(X)) == "asin(x)"
    assert to_c(fn.sign(X)) == "((x > 0) - (x < 0))"
    assert to_c(logical_and(ne(L, 0), eq(R, 1))) == "((lhs != 0) && (rhs == 1))"
    assert to_c(fn.pow(L, R - 1)) == "pow(lhs, (rhs - 1))"


def test_a_function_without_c_form_renders_none():
    assert FUNCTIONS["digamma"].c is None
    assert to_c(Y * fn.digamma(X)) is None
    assert ElemMath(fn.tgamma(X), (Y * fn.digamma(X),), ("x",)).cuda_grads() == (None,)
    assert "digamma" in repr(fn.digamma(X))  # messages still name it


def test_numpy_kernel_computes_in_the_arrays_dtype():
    x = np.array([-2.0, -0.5, 0.0, 1.5], dtype=np.float32)
    k = numpy_kernel(where(X > 0, 1, 0.25) * X, ("x",))
    r = k(np, x)
    assert r.dtype == np.float32  # two Python numbers in where take x's dtype
    np.testing.assert_array_equal(r, np.where(x > 0, 1, np.float32(0.25)) * x)
    # a truth value used as a number, and a truth-valued result, are 0/1 of that dtype
    sign = numpy_kernel((X > 0) - (X < 0), ("x",))(np, x)
    assert sign.dtype == np.float32
    np.testing.assert_array_equal(sign, np.sign(x))
    b = numpy_kernel(eq(X, 0), ("x",))(np, x)
    assert b.dtype == np.float32 and b.tolist() == [0, 0, 1, 0]


def test_numpy_kernel_writes_out_even_when_out_is_the_input():
    x = np.linspace(0.5, 2.0, 7)
    want = 1 / (1 + np.exp(-x)) + np.log(x)
    k = numpy_kernel(1 / (1 + fn.exp(-X)) + fn.log(X), ("x",))
    out = x.copy()
    assert k(np, out, out=out) is out
    np.testing.assert_allclose(out, want, rtol=1e-15)
    o = np.empty(7, dtype=np.float32)
    k_bool = numpy_kernel(X > 1, ("x",))
    assert k_bool(np, x, out=o) is o and o.tolist() == (x > 1).astype(np.float32).tolist()


def test_only_gradients_that_meet_bad_domains_silence_numpy():
    x = np.array([0.0, -1.0, 2.0])
    with np.errstate(all="raise"):
        # pow's gradients: 0 ** -1 and log of a negative base are normal there
        r = head_grad_kernel(Y * fn.log(L), ("lhs", "y"))(np, np.ones(3), x, np.ones(3))
        assert np.isnan(r[1]) and np.isinf(r[0])
        r = numpy_kernel(fn.pow(L, R), ("lhs", "rhs"), quiet=True)(np, x, -np.ones(3))
        assert np.isinf(r[0])
        # elsewhere NumPy's warnings are left as they are (errstate costs ~2 us a call)
        with pytest.raises(FloatingPointError):
            numpy_kernel(fn.log(X), ("x",))(np, x)


def test_head_grad_kernel_folds_constants_and_keeps_g_dtype():
    g = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    x = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    assert head_grad_kernel(const(1), ("x",))(np, g, x) is g
    assert head_grad_kernel(const(0), ("x",))(np, g, x).tolist() == [0, 0, 0]
    np.testing.assert_array_equal(head_grad_kernel(const(-1), ("x",))(np, g, x), -g)
    r = head_grad_kernel(1 / X, ("x",))(np, g, x.astype(np.float64))
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, g / x, rtol=1e-7)


def test_variables_substitute_and_reads():
    e = where(L >= R, L, R) * Y
    assert variables(e) == {"lhs", "rhs", "y"}
    s = substitute(e, {"lhs": "data", "rhs": var("scalar")})
    assert variables(s) == {"data", "scalar", "y"}
    assert ElemMath(L * R, (R, L), ("lhs", "rhs")).reads() == ("inputs",)
    assert ElemMath(fn.exp(X), (Y,), ("x",)).reads() == ("outputs",)
    assert ElemMath(L + R, (const(1), const(1)), ("lhs", "rhs")).reads() == ()


def test_graph_grad_over_f_records_a_second_order_gradient():
    # d/dx of g * cos(x) over F, recorded, gives -g * sin(x)
    gg = graph_grad(fn.cos(X))
    x = mx.nd.array([0.3, 1.1, -0.7], dtype="float64")
    x.attach_grad()
    g = mx.nd.array([1.0, 2.0, -1.0], dtype="float64")
    with mx.autograd.record():
        r = gg(mx.nd, g, {"x": x})
    r.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), -g.asnumpy() * np.sin(x.asnumpy()),
                               rtol=1e-12)
    # Python numbers stay numbers (the scalar of a scalar operator)
    assert graph_grad(fn.log(var("s")))(mx.nd, 2.0, {"s": math.e}) == pytest.approx(2.0)
    assert graph_grad(Y * fn.digamma(X)) is None


def test_recorded_backward_reads_attributes_it_does_not_get_as_inputs():
    op = get_op("_mul_scalar")
    attrs = op.parse_attrs({"scalar": 3.0})
    bg = recorded_backward(op.math)
    x = mx.nd.array([1.0, 2.0])
    (gx,) = bg(mx.nd, attrs, [x], [x * 3], [mx.nd.array([1.0, -1.0])])
    assert gx.asnumpy().tolist() == [3.0, -3.0]


def test_nan_propagation_is_stated_in_the_math():
    nan = np.array([np.nan, 1.0])
    relu = get_op("relu").math
    assert np.isnan(numpy_kernel(relu.forward, ("x",))(np, nan)[0])
    act = get_op("Activation").math(get_op("Activation").parse_attrs({"act_type": "relu"}))
    assert numpy_kernel(act.forward, ("data",))(np, nan)[0] == 0  # MXNet's Activation
    m = get_op("broadcast_maximum").math
    assert np.isnan(numpy_kernel(m.forward, ("lhs", "rhs"))(np, nan, np.zeros(2))[0])
    assert to_c(isnan(X)) == "(x != x)" and to_c(logical_or(X > 0, isnan(X)))


def test_every_fusable_operator_but_two_renders_from_math():
    hand_written = sorted(o.name for o in all_ops()
                          if (o.cuda is not None or o.cuda_fn is not None) and o.math is None)
    assert hand_written == ["clip", "where"]
